"""The JSON of a dump folder's modules: the `hlo.listModules` command's answer, which `hlo-lsp modules --format
json` prints too (no protocol types: the CLI imports it without the server's libraries)."""

from __future__ import annotations

from hlo_lsp.session import ModuleRow


def modules_json(rows: list[ModuleRow]) -> dict[str, object]:
    return {"modules": [_row_json(row) for row in rows]}


def _row_json(row: ModuleRow) -> dict[str, object]:
    return {"name": row.name, "path": row.path, "files": list(row.files), "peak": row.peak,
            "peaks": [{"space": peak.space, "bytes": peak.bytes} for peak in row.peaks],
            "allocated": row.allocated, "hloBytes": row.hlo_bytes, "instructions": row.instructions}
