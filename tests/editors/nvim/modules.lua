-- :HloModules in a real Neovim: the server's hlo.listModules command through the plugin, the modules offered
-- with vim.ui.select (the largest peak first) and in the quickfix list, and the one chosen opened. What to open
-- and what to expect comes from the test ($HLO_NVIM_SPEC).
local here = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:gsub('^@', ''), ':p:h')
local t = dofile(here .. '/common.lua')
local check, log, wait_for = t.check, t.log, t.wait_for

t.run(function()
  local spec = t.spec()
  t.load_plugin()
  check(vim.fn.exists(':HloModules') == 2, 'plugin/hlo.lua defines :HloModules')
  require('hlo').setup({ cmd = spec.cmd })

  -- vim.ui.select would wait for a choice: record what it offers and choose the first.
  local offered
  vim.ui.select = function(items, opts, on_choice)
    offered = vim.tbl_map(opts.format_item, items)
    on_choice(items[1], 1)
  end

  t.edit_attached(spec.module)

  vim.cmd('HloModules ' .. vim.fn.fnameescape(spec.folder))
  wait_for('the modules offered', function() return offered ~= nil end, 30000)
  log('offered:', offered)
  check(#offered == spec.count, 'every module is offered', #offered)
  for number, expected in ipairs(spec.first) do
    check(offered[number] and offered[number]:find(expected, 1, true) ~= nil, 'module ' .. number .. ' is '
      .. expected, offered[number])
  end
  wait_for('the first opened', function()
    return vim.api.nvim_buf_get_name(vim.api.nvim_get_current_buf()) == spec.first_file
  end)
  local quickfix = vim.fn.getqflist()
  check(#quickfix == spec.count, 'the quickfix list has every module', #quickfix)
  check(quickfix[1] and vim.api.nvim_buf_get_name(quickfix[1].bufnr) == spec.first_file,
    'the first quickfix entry is the first module')
end)
