"""The server's settings: initializationOptions in both spellings, the `hlo` section of
didChangeConfiguration and workspace/configuration; anything malformed leaves a setting as it was."""

from __future__ import annotations

from hlo_lsp.lsp.settings import Settings


def test_inlay_hints_are_on_by_default() -> None:
    assert Settings().inlay_hints is True


def test_initialization_options() -> None:
    for options in ({"inlayHints": False}, {"hlo": {"inlayHints": {"enabled": False}}},
                    {"inlayHints": {"enabled": False}}):
        settings = Settings()
        assert settings.apply_initialization_options(options) is True
        assert settings.inlay_hints is False, options
    for options in (None, [], "off", {"inlayHints": "no"}, {"hlo": {"inlayHints": None}}, {"other": 1}):
        settings = Settings()
        assert settings.apply_initialization_options(options) is False
        assert settings.inlay_hints is True, options


def test_configuration_changes() -> None:
    settings = Settings()
    assert settings.apply_settings({"hlo": {"inlayHints": {"enabled": False}}}) is True
    assert settings.inlay_hints is False
    assert settings.apply_settings({"hlo": {"inlayHints": {"enabled": False}}}) is False  # no change
    assert settings.apply_settings({"python": {}}) is False
    assert settings.apply_settings(None) is False
    assert settings.apply_section({"inlayHints": {"enabled": True}}) is True
    assert settings.inlay_hints is True
    assert settings.apply_section({"inlayHints": {"enabled": 0}}) is False
    assert settings.inlay_hints is True


def test_the_outline_bound() -> None:
    assert Settings().outline_max_symbols == 5000
    for options in ({"outline": {"maxSymbols": 20}}, {"hlo": {"outline": {"maxSymbols": 20}}}):
        settings = Settings()
        assert settings.apply_initialization_options(options) is True
        assert settings.outline_max_symbols == 20, options
    settings = Settings()
    assert settings.apply_settings({"hlo": {"outline": {"maxSymbols": 100_000}}}) is True
    assert settings.outline_max_symbols == 100_000
    for malformed in (0, -5, 2.5, "10", True, None):
        assert settings.apply_section({"outline": {"maxSymbols": malformed}}) is False, malformed
        assert settings.outline_max_symbols == 100_000
    assert settings.apply_section({"outline": {"maxSymbols": 7}, "inlayHints": {"enabled": False}}) is True
    assert (settings.outline_max_symbols, settings.inlay_hints) == (7, False)


def test_the_check_process_bound() -> None:
    assert Settings().check_process_from == 4_000_000
    for options in ({"checkProcess": {"fromMB": 0.5}}, {"hlo": {"checkProcess": {"fromMB": 0.5}}}):
        settings = Settings()
        assert settings.apply_initialization_options(options) is True
        assert settings.check_process_from == 500_000, options
    settings = Settings()
    assert settings.apply_section({"checkProcess": {"enabled": False}}) is True
    assert settings.check_process_from is None
    for malformed in ({"checkProcess": {"fromMB": -1}}, {"checkProcess": {"fromMB": "4"}},
                      {"checkProcess": {"enabled": "no"}}, {"checkProcess": 3}):
        settings = Settings()
        assert settings.apply_section(malformed) is False, malformed
        assert settings.check_process_from == 4_000_000, malformed
