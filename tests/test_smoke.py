from helpers import SPLIT_MLP, problems_of


def test_bundled_split_dump_has_no_problems() -> None:
    assert problems_of(SPLIT_MLP.parent) == []
