-- Filetype detection, syntax highlighting and :checkhealth of the plugin in a real Neovim.
-- The files to open and what to expect come from the test ($HLO_NVIM_SPEC).
local here = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:gsub('^@', ''), ':p:h')
local t = dofile(here .. '/common.lua')
local check, log = t.check, t.log

t.run(function()
  local spec = t.spec()
  t.load_plugin()

  -- Opening each file: what a user sees in 'filetype'.
  for _, case in ipairs(spec.files) do
    vim.cmd('edit ' .. vim.fn.fnameescape(case.path))
    check(vim.bo.filetype == case.filetype, 'opening ' .. case.path .. ' gives filetype ' .. case.filetype,
      vim.bo.filetype)
    vim.cmd('bwipeout!')
  end
  -- By name alone (no buffer): what plugins asking vim.filetype.match see.
  for _, case in ipairs(spec.names) do
    local detected = vim.filetype.match({ filename = case.name })
    check(detected == case.filetype, 'vim.filetype.match on ' .. case.name .. ' gives ' .. case.filetype, detected)
  end
  log('filetypes checked:', #spec.files + #spec.names)

  -- Syntax groups at a few places of a module and of a buffer assignment.
  vim.cmd('syntax on')
  for _, case in ipairs(spec.syntax) do
    vim.cmd('edit ' .. vim.fn.fnameescape(case.path))
    for _, at in ipairs(case.groups) do
      local group = vim.fn.synIDattr(vim.fn.synID(at[1], at[2], 1), 'name')
      check(group == at[3], string.format('syntax group at %s:%d:%d is %s', case.path, at[1], at[2], at[3]), group)
    end
  end

  -- :checkhealth hlo, with the server command of the test's virtualenv.
  vim.lsp.config('hlo', { cmd = spec.cmd })
  vim.cmd('checkhealth hlo')
  local report = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  local text = table.concat(report, '\n')
  log('checkhealth:', report)
  check(text:find('ERROR', 1, true) == nil and text:find('WARNING', 1, true) == nil,
    ':checkhealth hlo reports no error or warning', report)
  check(text:find('hlo-lsp ' .. spec.version, 1, true) ~= nil,
    ':checkhealth hlo shows the server version ' .. spec.version, report)
end)
