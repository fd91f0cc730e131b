-- Filetype detection for the files XLA writes with --xla_dump_to, named
-- `[<timestamp>.]module_<NNNN>[.<name>][.cl_<N>].<stage>` as the server reads them
-- (hlo_lsp/parsing/file_kinds.py):
--
--   hlo          HLO modules: *.hlo, *.hlo.txt, and the stages *before_optimizations.txt,
--                *after_optimizations.txt (cpu_, gpu_, ...), *_optimizations_{before,after}_buffer_assignment.txt
--                and *.after_codegen.txt (TPU), and the pass dumps *.NNNN.<pipeline>.after_<x>.before_<y>.txt
--   hlo_buffers  *-buffer-assignment.txt, *-buffer-assignment-values.txt, *-live-range.txt,
--                *-memory-usage-report.txt, *.buffer-assignment.txt
--
-- The side files TPU writes beside them (*.tpu_comp_env.txt, *.hlo_module_config.txt, ...: flags and
-- protobuf text) are neither. Any other *.txt whose first line is the first line of one of those files
-- (a dump that was renamed) gets the same filetype; every other *.txt is left to Neovim.
local M = {}

-- The first line of each kind of file, as the server reads it (hlo_lsp/parsing/file_kinds.py).
local FIRST_LINES = {
  { 'HloModule', 'hlo' },
  { 'BufferAssignment:', 'hlo_buffers' },
  { 'Total bytes used:', 'hlo_buffers' },
  { 'Used values:', 'hlo_buffers' },
  { 'HloLiveRange', 'hlo_buffers' },
  { 'Memory Space:', 'hlo_buffers' },
  { 'memory_space_allocation_entries', 'hlo_buffers' },
}

--- The filetype the first non-blank, non-comment line of `bufnr` announces, or nil.
local function from_contents(_, bufnr)
  if not bufnr or not vim.api.nvim_buf_is_loaded(bufnr) then
    return nil
  end
  for _, line in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, 20, false)) do
    local text = vim.trim(line)
    if text ~= '' and text:sub(1, 2) ~= '//' then
      for _, entry in ipairs(FIRST_LINES) do
        if text:sub(1, #entry[1]) == entry[1] then
          return entry[2]
        end
      end
      return nil
    end
  end
  return nil
end

-- Patterns are matched against the file name (they hold no '/'), anchored at both ends. Each
-- names the end of a file name, so a side file (`module_0000.jit_f.cl_1.tpu_comp_env.txt`) matches
-- none. Higher priorities are tried first: the companions before the modules (a pass dump's name
-- could end like a companion's), the contents last, and still before Neovim's own `*.txt` (text).
M.spec = {
  extension = {
    hlo = 'hlo',
  },
  pattern = {
    ['.*%-buffer%-assignment%.txt'] = { 'hlo_buffers', { priority = 30 } },
    ['.*%-buffer%-assignment%-values%.txt'] = { 'hlo_buffers', { priority = 30 } },
    ['.*%-live%-range%.txt'] = { 'hlo_buffers', { priority = 30 } },
    ['.*%-memory%-usage%-report%.txt'] = { 'hlo_buffers', { priority = 30 } },
    ['.*%.buffer%-assignment%.txt'] = { 'hlo_buffers', { priority = 30 } },
    ['.*%.hlo%.txt'] = { 'hlo', { priority = 20 } },
    ['.*before_optimizations%.txt'] = { 'hlo', { priority = 20 } },
    ['.*after_optimizations%.txt'] = { 'hlo', { priority = 20 } },
    ['.*_optimizations_before_buffer_assignment%.txt'] = { 'hlo', { priority = 20 } },
    ['.*_optimizations_after_buffer_assignment%.txt'] = { 'hlo', { priority = 20 } },
    ['.*%.after_codegen%.txt'] = { 'hlo', { priority = 20 } },
    ['.*%.%d%d%d%d%..*%.after_.*%.before_.*%.txt'] = { 'hlo', { priority = 20 } },
    ['.*%.txt'] = { from_contents, { priority = 1 } },
  },
}

local added = false

--- Registers the mappings with vim.filetype.add (once; later calls do nothing).
function M.add()
  if added then
    return
  end
  added = true
  if vim.fn.has('nvim-0.8') == 0 then
    vim.g.do_filetype_lua = 1 -- Neovim 0.7 reads vim.filetype.add only with this set
  end
  vim.filetype.add(M.spec)
end

return M
