-- :HloMemoryTimeline in a real Neovim: the server's hlo.memoryTimeline command through the plugin, the
-- SVG picture written to a temporary file and handed to vim.ui.open, the table of the buffers at the
-- peak in a split (with a bang, and when vim.ui.open is missing as before Neovim 0.10), and <CR> on a
-- row jumping to the instruction. What to open and what to expect comes from the test ($HLO_NVIM_SPEC).
local here = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:gsub('^@', ''), ':p:h')
local t = dofile(here .. '/common.lua')
local check, log, wait_for = t.check, t.log, t.wait_for

local function read(path)
  local file = io.open(path, 'r')
  if not file then
    return nil
  end
  local text = file:read('*a')
  file:close()
  return text
end

local function table_window()
  return t.window_with('hlo_memory_timeline')
end

local function check_picture(path, spec)
  check(path ~= nil and vim.endswith(path, '/' .. spec.name .. '.memory.svg'), 'the picture is <module>.memory.svg',
    path)
  local svg = path and read(path) or ''
  check(vim.startswith(svg, '<svg xmlns="http://www.w3.org/2000/svg"'), 'the file holds the SVG', svg:sub(1, 80))
  for _, expected in ipairs(spec.svg_contains) do
    check(svg:find(expected, 1, true) ~= nil, 'the SVG contains ' .. vim.inspect(expected))
  end
end

t.run(function()
  local spec = t.spec()
  t.load_plugin()
  check(vim.fn.exists(':HloMemoryTimeline') == 2, 'plugin/hlo.lua defines :HloMemoryTimeline')
  require('hlo').setup({ cmd = spec.cmd })

  -- vim.ui.open would start a viewer: record what it is asked to open instead.
  local opened = {}
  vim.ui.open = function(path)
    opened[#opened + 1] = path
    return { wait = function() return { code = 0 } end }, nil
  end

  local module = t.edit_attached(spec.module)

  -- The picture, opened with vim.ui.open.
  vim.cmd('HloMemoryTimeline')
  wait_for('the picture to be opened', function() return #opened > 0 end, 30000)
  log('opened', opened[1])
  check_picture(opened[1], spec)
  check(table_window() == nil, 'no table when the picture opens')

  -- With a bang: the table of the buffers at the peak, in a split.
  vim.cmd('HloMemoryTimeline!')
  wait_for('the table', function() return table_window() ~= nil end, 30000)
  local win = table_window()
  local lines = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false)
  log('table:', lines)
  for _, expected in ipairs(spec.table) do
    check(vim.tbl_contains(lines, expected), 'the table shows ' .. vim.inspect(expected), lines)
  end
  check(#opened == 1, 'the bang does not open the picture', opened)

  -- <CR> on a row jumps to the instruction in the module.
  t.enter_on_line(win, lines, ' ' .. spec.row .. ' ')
  wait_for('the jump to the instruction', function() return vim.api.nvim_get_current_buf() == module end)
  check(vim.deep_equal(vim.api.nvim_win_get_cursor(0), spec.definition), '<CR> jumps to ' ..
    vim.inspect(spec.definition), vim.api.nvim_win_get_cursor(0))
  vim.api.nvim_win_close(win, true)

  -- Without vim.ui.open (Neovim before 0.10): the picture is still written, and the table shows.
  vim.ui.open = nil
  vim.api.nvim_set_current_buf(module)
  os.remove(opened[1])
  vim.cmd('HloMemoryTimeline')
  wait_for('the table instead of the picture', function() return table_window() ~= nil end, 30000)
  local path = require('hlo.memory').last.path
  check_picture(path, spec)
  local fallback = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(table_window()), 0, -1, false)
  check(vim.tbl_contains(fallback, 'picture: ' .. tostring(path)), 'the table names the picture', fallback)
end)
