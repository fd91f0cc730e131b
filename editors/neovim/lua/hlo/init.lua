-- hlo-lsp for Neovim: `require('hlo').setup(opts)`.
--
-- On Neovim 0.11+ this is `vim.lsp.config('hlo', opts)` and `vim.lsp.enable('hlo')`, on top of
-- lsp/hlo.lua. On 0.8-0.10 it starts the client itself with `vim.lsp.start` from a FileType
-- autocommand, with the same configuration.
--
-- opts (all optional):
--   cmd             the server command, default { 'hlo-lsp' }; e.g. { '/venv/bin/hlo-lsp' } or
--                   { 'python', '-m', 'hlo_lsp' }
--   settings        sent to the server as workspace configuration
--   use_lsp_enable  false: start with vim.lsp.start from a FileType autocommand even on 0.11+
--   any other key of a client configuration (cmd_env, on_attach, capabilities, root_markers, ...)
local M = {}

local PLUGIN_OPTIONS = { use_lsp_enable = true }
local GROUP = 'hlo_lsp'

--- The defaults: lsp/hlo.lua of this plugin, the table `vim.lsp.config('hlo')` reads on 0.11+.
function M.defaults()
  local here = debug.getinfo(1, 'S').source:gsub('^@', '') -- <plugin>/lua/hlo/init.lua
  local root = vim.fn.fnamemodify(here, ':p:h:h:h')
  return dofile(root .. '/lsp/hlo.lua')
end

--- The configuration setup() started the client with on the vim.lsp.start path (for :checkhealth).
M.config = nil

local function root_dir(bufnr, markers)
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == '' or not markers or #markers == 0 then
    return nil
  end
  local found = vim.fs.find(markers, { upward = true, path = vim.fs.dirname(name) })[1]
  return found and vim.fs.dirname(found) or nil
end

local function start(config, bufnr)
  if vim.bo[bufnr].buftype ~= '' then
    return
  end
  local client_config = vim.deepcopy(config)
  client_config.name = 'hlo'
  client_config.root_dir = client_config.root_dir or root_dir(bufnr, client_config.root_markers)
  client_config.root_markers = nil
  client_config.filetypes = nil
  -- vim.lsp.start attaches the current buffer on 0.8-0.9.
  vim.api.nvim_buf_call(bufnr, function()
    vim.lsp.start(client_config, { bufnr = bufnr })
  end)
end

local function start_on_filetype(config)
  M.config = config
  local group = vim.api.nvim_create_augroup(GROUP, { clear = true })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = config.filetypes,
    callback = function(args)
      start(config, args.buf)
    end,
  })
  -- Buffers opened before setup().
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) and vim.tbl_contains(config.filetypes, vim.bo[bufnr].filetype) then
      start(config, bufnr)
    end
  end
end

function M.setup(opts)
  opts = opts or {}
  require('hlo.filetype').add()
  require('hlo.memory').create_command()
  require('hlo.compare').create_command()
  require('hlo.modules').create_command()
  local overrides = {}
  for key, value in pairs(opts) do
    if not PLUGIN_OPTIONS[key] then
      overrides[key] = value
    end
  end
  local use_lsp_enable = opts.use_lsp_enable
  if use_lsp_enable == nil then
    use_lsp_enable = vim.fn.has('nvim-0.11') == 1
  end
  if use_lsp_enable then
    vim.lsp.config('hlo', overrides)
    vim.lsp.enable('hlo')
  else
    if not vim.lsp.start then
      vim.notify('hlo-lsp: Neovim 0.8 or newer is needed', vim.log.levels.ERROR)
      return
    end
    local config = M.defaults()
    for key, value in pairs(overrides) do
      config[key] = value -- a given key replaces the default (cmd = { ... } is a whole command)
    end
    start_on_filetype(config)
  end
end

return M
