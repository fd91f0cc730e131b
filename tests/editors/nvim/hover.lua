-- A hover in a real Neovim, the server started by vim.lsp.config + vim.lsp.enable: the float shown at the
-- cursor holds each of the expected strings. What to open and expect comes from the test ($HLO_NVIM_SPEC).
local here = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:gsub('^@', ''), ':p:h')
local t = dofile(here .. '/common.lua')
local check, log, wait_for = t.check, t.log, t.wait_for

t.run(function()
  local spec = t.spec()
  t.load_plugin()
  vim.lsp.config('hlo', { cmd = spec.cmd })
  vim.lsp.enable('hlo')

  vim.cmd('edit ' .. vim.fn.fnameescape(spec.file))
  local bufnr = vim.api.nvim_get_current_buf()
  check(vim.bo[bufnr].filetype == spec.filetype, 'filetype of ' .. spec.file .. ' is ' .. spec.filetype,
    vim.bo[bufnr].filetype)
  wait_for('the hlo client to attach', function()
    local client = vim.lsp.get_clients({ bufnr = bufnr, name = 'hlo' })[1]
    return client ~= nil and client.initialized
  end, 20000)

  local floats = t.floats
  vim.api.nvim_win_set_cursor(0, spec.cursor)
  vim.lsp.buf.hover()
  wait_for('the hover float', function() return #floats() > 0 end)
  local lines = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(floats()[1]), 0, -1, false)
  log('hover float:', lines)
  local text = table.concat(lines, '\n')
  for _, expected in ipairs(spec.contains) do
    check(text:find(expected, 1, true) ~= nil, 'the hover float shows ' .. vim.inspect(expected), lines)
  end
end)
