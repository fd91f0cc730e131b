-- The filetype of every bundled file, opened and by its name alone (vim.filetype.match): hlo or hlo_buffers
-- as the test says (from the MANIFEST of its case folder, or the server's detect_kind), and neither for the
-- side files and any other file ("" in $HLO_NVIM_SPEC).
local here = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:gsub('^@', ''), ':p:h')
local t = dofile(here .. '/common.lua')
local check, log = t.check, t.log

t.run(function()
  local spec = t.spec()
  t.load_plugin()
  local ours = { hlo = true, hlo_buffers = true }
  local counts = {}
  for _, case in ipairs(spec.files) do
    vim.cmd('edit ' .. vim.fn.fnameescape(case.path))
    local opened = vim.bo.filetype
    vim.cmd('bwipeout!')
    local named = vim.filetype.match({ filename = vim.fn.fnamemodify(case.path, ':t') }) or ''
    for how, got in pairs({ opened = opened, ['by name'] = named }) do
      local ok = got == case.filetype or (case.filetype == '' and not ours[got])
      check(ok, string.format('%s (%s), %s, is %s', case.path, case.kind, how,
        case.filetype == '' and 'neither hlo nor hlo_buffers' or case.filetype), got)
    end
    counts[opened] = (counts[opened] or 0) + 1
  end
  log('files checked: ' .. #spec.files, counts)
end)
