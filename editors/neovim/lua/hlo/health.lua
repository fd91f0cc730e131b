-- :checkhealth hlo
local M = {}

local health = vim.health or require('health')
local start = health.start or health.report_start
local ok = health.ok or health.report_ok
local warn = health.warn or health.report_warn
local error = health.error or health.report_error
local info = health.info or health.report_info

--- The configuration a client would start with now.
local function current_config()
  local hlo = require('hlo')
  if hlo.config then
    return hlo.config, 'require("hlo").setup() (vim.lsp.start)'
  end
  if vim.fn.has('nvim-0.11') == 1 then
    local config = vim.lsp.config['hlo']
    if config then
      return config, "vim.lsp.config('hlo')"
    end
  end
  return hlo.defaults(), 'lsp/hlo.lua'
end

function M.check()
  start('hlo-lsp')
  local version = vim.version()
  local nvim = string.format('%d.%d.%d', version.major, version.minor, version.patch)
  if vim.fn.has('nvim-0.11') == 1 then
    ok('Neovim ' .. nvim .. ": start the server with vim.lsp.enable('hlo') or require('hlo').setup()")
  elseif vim.fn.has('nvim-0.8') == 1 then
    ok('Neovim ' .. nvim .. ": start the server with require('hlo').setup()")
  else
    error('Neovim ' .. nvim .. ': 0.8 or newer is needed')
  end

  for name, expected in pairs({ ['module_0000.jit_f.cpu_after_optimizations.txt'] = 'hlo',
    ['module_0000.jit_f.cpu_after_optimizations-buffer-assignment.txt'] = 'hlo_buffers' }) do
    local detected = vim.filetype.match({ filename = name })
    if detected == expected then
      ok(string.format('filetype of %s: %s', name, detected))
    else
      warn(string.format('filetype of %s: %s, not %s', name, tostring(detected), expected),
        { 'another plugin or your configuration maps these names first' })
    end
  end

  local config, from = current_config()
  local cmd = config.cmd
  if type(cmd) ~= 'table' or #cmd == 0 then
    info('server command from ' .. from .. ': not a list, not checked')
    return
  end
  info('server command from ' .. from .. ': ' .. table.concat(cmd, ' '))
  if vim.fn.executable(cmd[1]) == 0 then
    error(cmd[1] .. ' is not executable', {
      "install the server (pip install hlo-lsp, or pip install <repo>) or point at it: "
        .. "vim.lsp.config('hlo', { cmd = { '/path/to/venv/bin/hlo-lsp' } })",
    })
    return
  end
  local last = cmd[#cmd]
  if not (last:match('hlo%-lsp$') or last == 'hlo_lsp') then
    info('a command that does not end with hlo-lsp or hlo_lsp: its version is not checked')
    return
  end
  local version_cmd = vim.list_extend(vim.deepcopy(cmd), { '--version' })
  local output = vim.fn.system(version_cmd)
  if vim.v.shell_error == 0 then
    ok(vim.trim(output))
  else
    error(table.concat(version_cmd, ' ') .. ' failed: ' .. vim.trim(output))
  end
end

return M
