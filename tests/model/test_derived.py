"""What is derived from an engine object, kept on it: keys found again by their number (in a forked copy of the
process), and what was derived since a moment, put where nothing is yet."""

from __future__ import annotations

from hlo_lsp.model.derived import Derived, DerivedKey


def test_a_key_is_found_by_its_number_and_name_alone() -> None:
    first, second = DerivedKey[int]("a key of a test"), DerivedKey[int]("another key of a test")
    assert DerivedKey.numbered(first.number, "a key of a test") is first
    assert DerivedKey.numbered(second.number, "another key of a test") is second
    assert DerivedKey.numbered(first.number, "another key of a test") is None  # (made since in one process only)
    assert DerivedKey.numbered(second.number + 10_000, "a key of a test") is None


def test_what_was_derived_since_is_put_where_nothing_is_yet() -> None:
    kept, new, taken = DerivedKey[str]("kept in a test"), DerivedKey[str]("new in a test"), DerivedKey[str]("taken")
    there, here = Derived(), Derived()
    there.put(kept, "before")
    before = there.keys()
    there.put(new, "since")
    there.put(taken, "there")
    assert there.added_since(before) == {new: "since", taken: "there"}
    here.put(taken, "here")
    here.put_missing(there.added_since(before))
    assert (here.get(new), here.get(taken), here.get(kept)) == ("since", "here", None)
