-- The hlo-lsp client configuration for Neovim 0.11+.
--
-- With this plugin on 'runtimepath', `vim.lsp.config('hlo')` reads this table; enable it with
--
--     vim.lsp.enable('hlo')
--
-- and override any field first, e.g. a server installed in a virtualenv:
--
--     vim.lsp.config('hlo', { cmd = { '/path/to/venv/bin/hlo-lsp' } })
--
-- `require('hlo').setup()` reads the same table, on every Neovim from 0.8.
return {
  -- `hlo-lsp` with no arguments serves the Language Server Protocol over stdio.
  cmd = { 'hlo-lsp' },
  -- `hlo`: HLO modules; `hlo_buffers`: buffer assignments and the files beside them.
  filetypes = { 'hlo', 'hlo_buffers' },
  -- A dump folder needs no project: outside a repository no root is found and every dump file
  -- is served in single-file mode by one shared server, which finds a module's companion files
  -- beside it on disk.
  root_markers = { '.git' },
}
