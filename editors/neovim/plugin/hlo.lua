-- Filetype detection, also when detection was turned on before this plugin joined 'runtimepath'
-- (then ftdetect/ is not read). Starting the server is up to the user: `vim.lsp.enable('hlo')`
-- (Neovim 0.11+) or `require('hlo').setup()`.
if vim.g.loaded_hlo_lsp then
  return
end
vim.g.loaded_hlo_lsp = true
require('hlo.filetype').add()
require('hlo.memory').create_command() -- :HloMemoryTimeline
require('hlo.compare').create_command() -- :HloCompare
require('hlo.modules').create_command() -- :HloModules
