-- :HloModules [folder] — every module of a dump folder (default: the workspace folders), the largest peak
-- first, from the server's `hlo.listModules` command (workspace/executeCommand).
--
-- The modules are offered with vim.ui.select (each with its peak); the one chosen opens its HLO file. The
-- quickfix list gets them all, in the same order (:copen).
local memory = require('hlo.memory')

local M = {}

M.COMMAND = 'hlo.listModules'

--- What the last run listed: the answer's modules.
M.last = nil

--- One module as a line: its peak, its name and its file.
function M.entry(module)
  local peak = module.peak ~= nil and module.peak ~= vim.NIL and memory.human(module.peak) or 'no peak'
  return string.format('%10s  %s  %s', peak, module.name, vim.fn.fnamemodify(module.path, ':~:.'))
end

--- The modules as quickfix items, at the first line of their HLO file.
function M.quickfix_items(modules)
  local items = {}
  for _, module in ipairs(modules) do
    items[#items + 1] = { filename = module.path, lnum = 1, col = 1, text = M.entry(module) }
  end
  return items
end

--- Shows an answer: the quickfix list filled, and the modules offered to open one.
function M.show(answer)
  M.last = answer.modules
  vim.fn.setqflist({}, ' ', { title = 'hlo-lsp: modules', items = M.quickfix_items(answer.modules) })
  if #answer.modules == 0 then
    vim.notify('hlo-lsp: no dump module there', vim.log.levels.WARN)
    return
  end
  vim.ui.select(answer.modules, { prompt = 'HLO modules, the largest peak first', format_item = M.entry },
    function(module)
      if module then
        vim.cmd('edit ' .. vim.fn.fnameescape(module.path))
      end
    end)
end

--- Lists the modules of `folder` (a path; nil or '': the workspace folders of the current buffer's client).
function M.list(folder)
  local arguments = {}
  if folder and folder ~= '' then
    arguments = { vim.uri_from_fname(vim.fn.fnamemodify(vim.fn.expand(folder), ':p'):gsub('/$', '')) }
  end
  memory.execute(M.COMMAND, function() return arguments end, M.show)
end

--- Defines :HloModules [folder]; safe to call more than once.
function M.create_command()
  vim.api.nvim_create_user_command('HloModules', function(args)
    M.list(args.args)
  end, { nargs = '?', complete = 'dir', force = true,
    desc = 'hlo-lsp: the modules of a dump folder, the largest peak first' })
end

return M
