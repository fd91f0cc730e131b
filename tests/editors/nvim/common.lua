-- Shared by the Neovim scripts: the spec the test wrote, failure bookkeeping, an honest exit.
local M = {}

local uv = vim.uv or vim.loop
local t0 = uv.hrtime()

function M.log(...)
  local parts = {}
  for _, value in ipairs({ ... }) do
    parts[#parts + 1] = type(value) == 'string' and value or vim.inspect(value)
  end
  io.stdout:write(string.format('[%6.0f ms] %s\n', (uv.hrtime() - t0) / 1e6, table.concat(parts, ' ')))
  io.stdout:flush()
end

--- The JSON the test wrote to $HLO_NVIM_SPEC.
function M.spec()
  local file = assert(io.open(assert(os.getenv('HLO_NVIM_SPEC'), 'HLO_NVIM_SPEC is not set'), 'r'))
  local text = file:read('*a')
  file:close()
  return vim.json.decode(text)
end

M.failures = {}

--- Records a failed check (the script goes on, so that one run reports every failure).
function M.check(condition, what, ...)
  if not condition then
    local got = select('#', ...) > 0 and ('\n    got: ' .. vim.inspect((...))) or ''
    M.failures[#M.failures + 1] = what .. got
  end
  return condition
end

--- Waits for `predicate`; a timeout is a failure that stops the script.
function M.wait_for(what, predicate, timeout)
  if not vim.wait(timeout or 10000, predicate, 20) then
    error('timed out waiting for ' .. what, 0)
  end
end

--- Runs `body`, then leaves Neovim: `qall!` when every check passed, else `cquit! 1` after
--- writing what failed to stderr.
function M.run(body)
  local ok, err = xpcall(body, debug.traceback)
  if not ok then
    M.failures[#M.failures + 1] = 'error: ' .. tostring(err)
  end
  if #M.failures == 0 then
    M.log('PASS')
    vim.cmd('qall!')
  else
    io.stderr:write('FAILED in Neovim:\n')
    for _, failure in ipairs(M.failures) do
      io.stderr:write('  - ' .. failure .. '\n')
    end
    io.stderr:flush()
    vim.cmd('cquit! 1')
  end
end

--- The floating windows open now (a hover shows in one).
function M.floats()
  local found = {}
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(win).relative ~= '' then
      found[#found + 1] = win
    end
  end
  return found
end

--- Loads the plugin as a user's Neovim would with it on 'runtimepath' (-u NONE loads nothing).
function M.load_plugin()
  vim.cmd('filetype plugin on') -- reads ftdetect/ from 'runtimepath'
  vim.cmd('runtime! plugin/hlo.lua')
end

--- Edits `path` and waits for the hlo client to attach to it; its buffer.
function M.edit_attached(path)
  vim.cmd('edit ' .. vim.fn.fnameescape(path))
  local bufnr = vim.api.nvim_get_current_buf()
  M.wait_for('the hlo client to attach', function()
    local client = vim.lsp.get_clients({ bufnr = bufnr, name = 'hlo' })[1]
    return client ~= nil and client.initialized
  end, 20000)
  return bufnr
end

--- The window showing a buffer with the buffer variable `name` set (a plugin's split), or nil.
function M.window_with(name)
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.b[vim.api.nvim_win_get_buf(win)][name] then
      return win
    end
  end
  return nil
end

--- Presses <CR> in window `win` on the last of `lines` that holds `needle` (checked to be there).
function M.enter_on_line(win, lines, needle)
  local row
  for number, line in ipairs(lines) do
    if line:find(needle, 1, true) then
      row = number
    end
  end
  M.check(row ~= nil, 'a line holds ' .. vim.inspect(needle), lines)
  vim.api.nvim_set_current_win(win)
  vim.api.nvim_win_set_cursor(win, { row or 1, 0 })
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<CR>', true, false, true), 'x', false)
end

return M
