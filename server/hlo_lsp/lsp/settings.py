"""The server's settings, from initializationOptions and the client's `hlo` configuration section.

    initializationOptions: {"inlayHints": false}     (or {"hlo": {"inlayHints": {"enabled": false}}})
    workspace/didChangeConfiguration: {"settings": {"hlo": {"inlayHints": {"enabled": false}}}}
    workspace/configuration, section "hlo": {"inlayHints": {"enabled": false}}

and in the same places `"outline": {"maxSymbols": 20000}`: how many symbols an outline lists at
most (a 40 MB module has 365,000; VS Code's own folding stops at 5,000 regions), and
`"checkProcess": {"fromMB": 4}`: a module whose files take that many megabytes (10^6 bytes) or more
is checked in a process of its own, on another core, while the server answers; `{"enabled": false}`
checks every module in the server's process.

Anything else in those objects is ignored; a malformed value leaves the setting as it was.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

SECTION = "hlo"
OUTLINE_MAX_SYMBOLS = 5000
# A smaller module is checked in the server's process: starting the check process takes half a second, and
# checking 4 MB about as long.
CHECK_PROCESS_FROM_MB = 4.0


@dataclass
class Settings:
    inlay_hints: bool = True
    outline_max_symbols: int = OUTLINE_MAX_SYMBOLS
    check_process_from_mb: float = CHECK_PROCESS_FROM_MB
    check_process: bool = True

    @property
    def check_process_from(self) -> int | None:
        """The bytes of a module's files from which it is checked in the check process (None: never)."""
        return round(self.check_process_from_mb * 1_000_000) if self.check_process else None

    def apply_initialization_options(self, options: Any) -> bool:
        """Reads initializationOptions; True when a setting changed."""
        if not isinstance(options, dict):
            return False
        changed = self.apply_section(options.get(SECTION))
        flat = options.get("inlayHints")
        if isinstance(flat, bool) and flat != self.inlay_hints:
            self.inlay_hints = flat
            changed = True
        return self.apply_section(options) or changed

    def apply_settings(self, settings: Any) -> bool:
        """Reads the `settings` of workspace/didChangeConfiguration (all sections)."""
        return isinstance(settings, dict) and self.apply_section(settings.get(SECTION))

    def apply_section(self, section: Any) -> bool:
        """Reads the `hlo` section; True when a setting changed."""
        if not isinstance(section, dict):
            return False
        before = (self.inlay_hints, self.outline_max_symbols, self.check_process_from)
        enabled = _field(section, "inlayHints", "enabled")
        if isinstance(enabled, bool):
            self.inlay_hints = enabled
        limit = _field(section, "outline", "maxSymbols")
        if isinstance(limit, int) and not isinstance(limit, bool) and limit > 0:
            self.outline_max_symbols = limit
        self._apply_check_process(section)
        return (self.inlay_hints, self.outline_max_symbols, self.check_process_from) != before

    def _apply_check_process(self, section: dict[str, Any]) -> None:
        enabled = _field(section, "checkProcess", "enabled")
        if isinstance(enabled, bool):
            self.check_process = enabled
        size = _field(section, "checkProcess", "fromMB")
        if isinstance(size, (int, float)) and not isinstance(size, bool) and size >= 0:
            self.check_process_from_mb = float(size)


def _field(section: dict[str, Any], group: str, name: str) -> Any:
    inner = section.get(group)
    return inner.get(name) if isinstance(inner, dict) else None
