-- :HloCompare in a real Neovim: the server's hlo.compare command through the plugin, the rows in a split and
-- in the quickfix list, the picture written to a temporary file, and <CR> on a row opening its instruction in
-- B. What to open and what to expect comes from the test ($HLO_NVIM_SPEC).
local here = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:gsub('^@', ''), ':p:h')
local t = dofile(here .. '/common.lua')
local check, log, wait_for = t.check, t.log, t.wait_for

local function rows_window()
  return t.window_with('hlo_compare')
end

t.run(function()
  local spec = t.spec()
  t.load_plugin()
  check(vim.fn.exists(':HloCompare') == 2, 'plugin/hlo.lua defines :HloCompare')
  require('hlo').setup({ cmd = spec.cmd })

  t.edit_attached(spec.module)

  vim.cmd('HloCompare ' .. vim.fn.fnameescape(spec.other))
  wait_for('the rows', function() return rows_window() ~= nil end, 30000)
  local win = rows_window()
  local lines = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false)
  log('rows:', lines)
  for _, expected in ipairs(spec.lines) do
    check(vim.tbl_contains(lines, expected), 'the split shows ' .. vim.inspect(expected), lines)
  end

  local picture = require('hlo.compare').last.pictures[1]
  local file = picture and io.open(picture, 'r')
  local svg = file and file:read('*a') or ''
  if file then
    file:close()
  end
  check(vim.tbl_contains(lines, 'picture: ' .. tostring(picture)), 'the split names the picture', lines)
  check(svg:find(spec.svg_contains, 1, true) ~= nil, 'the picture shows ' .. spec.svg_contains)

  local quickfix = vim.fn.getqflist()
  check(#quickfix == spec.rows, 'the quickfix list has a row per buffer', #quickfix)
  check(quickfix[1] and quickfix[1].text == spec.first_quickfix, 'the first quickfix row',
    quickfix[1] and quickfix[1].text)

  -- <CR> on the row of spec.row opens its instruction in B.
  t.enter_on_line(win, lines, '→ ' .. spec.row .. ' ')
  wait_for('the jump into B', function()
    return vim.api.nvim_buf_get_name(vim.api.nvim_get_current_buf()) == spec.b_file
  end)
  check(vim.deep_equal(vim.api.nvim_win_get_cursor(0), spec.definition), '<CR> opens ' ..
    vim.inspect(spec.definition), vim.api.nvim_win_get_cursor(0))
end)
