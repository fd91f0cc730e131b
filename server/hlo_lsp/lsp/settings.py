"""The server's settings, from initializationOptions and the client's `hlo` configuration section.

    initializationOptions: {"inlayHints": false}     (or {"hlo": {"inlayHints": {"enabled": false}}})
    workspace/didChangeConfiguration: {"settings": {"hlo": {"inlayHints": {"enabled": false}}}}
    workspace/configuration, section "hlo": {"inlayHints": {"enabled": false}}

Anything else in those objects is ignored; a malformed value leaves the setting as it was.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

SECTION = "hlo"


@dataclass
class Settings:
    inlay_hints: bool = True

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
        hints = section.get("inlayHints")
        enabled = hints.get("enabled") if isinstance(hints, dict) else None
        if isinstance(enabled, bool) and enabled != self.inlay_hints:
            self.inlay_hints = enabled
            return True
        return False
