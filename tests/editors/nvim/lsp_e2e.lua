-- The plugin end to end in a real Neovim: the server started by the plugin's own configuration,
-- then hover, go to definition, find references and diagnostics through Neovim's own UI paths.
-- What to open and what to expect comes from the test ($HLO_NVIM_SPEC).
local here = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:gsub('^@', ''), ':p:h')
local t = dofile(here .. '/common.lua')
local check, log, wait_for = t.check, t.log, t.wait_for

local function hlo_client(bufnr)
  return vim.lsp.get_clients({ bufnr = bufnr, name = 'hlo' })[1]
end

local function open(path, filetype)
  vim.cmd('edit ' .. vim.fn.fnameescape(path))
  local bufnr = vim.api.nvim_get_current_buf()
  check(vim.bo[bufnr].filetype == filetype, 'filetype of ' .. path .. ' is ' .. filetype, vim.bo[bufnr].filetype)
  wait_for('the hlo client to attach to ' .. path, function()
    local client = hlo_client(bufnr)
    return client ~= nil and client.initialized
  end, 20000)
  return bufnr
end

local floats = t.floats

local function basename(path)
  return vim.fn.fnamemodify(path, ':t')
end

t.run(function()
  local spec = t.spec()

  -- Start the server the way the README says, with the command of the test's virtualenv.
  local start = {
    -- The user's init.lua did it, and Neovim's normal startup loaded the plugin.
    init_lua = function()
      check(vim.g.loaded_hlo_lsp == true, 'Neovim loaded plugin/hlo.lua at startup', vim.g.loaded_hlo_lsp)
    end,
    setup = function()
      require('hlo').setup({ cmd = spec.cmd })
    end,
    setup_filetype = function()
      require('hlo').setup({ cmd = spec.cmd, use_lsp_enable = false })
    end,
    lsp_enable = function()
      vim.lsp.config('hlo', { cmd = spec.cmd })
      vim.lsp.enable('hlo')
    end,
  }
  assert(start[spec.mode], 'unknown mode ' .. tostring(spec.mode))
  if spec.mode ~= 'init_lua' then
    t.load_plugin() -- -u NONE loads no plugin and detects no filetype
  end
  start[spec.mode]()
  check((require('hlo').config ~= nil) == (spec.mode == 'setup_filetype'),
    'setup() takes the vim.lsp.start path only when asked to', require('hlo').config)
  log('mode', spec.mode, 'nvim', tostring(vim.version()))

  local module = open(spec.module, 'hlo')
  local client = hlo_client(module)
  check(vim.deep_equal(client.config.cmd, spec.cmd), 'the client runs the given command', client.config.cmd)
  log('attached', client.name, client.id)

  -- Hover: the float opens and shows the instruction's memory.
  vim.api.nvim_win_set_cursor(0, spec.hover.cursor)
  vim.lsp.buf.hover()
  wait_for('the hover float', function() return #floats() > 0 end)
  local float = floats()[1]
  local hover_lines = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(float), 0, -1, false)
  log('hover float:', hover_lines)
  for _, expected in ipairs(spec.hover.lines) do
    check(vim.tbl_contains(hover_lines, expected), 'the hover float shows the line ' .. vim.inspect(expected),
      hover_lines)
  end
  vim.api.nvim_win_close(float, true)

  -- Go to definition from a use moves the cursor onto the defining name.
  vim.api.nvim_win_set_cursor(0, spec.definition.cursor)
  vim.lsp.buf.definition()
  local target = spec.definition.target
  wait_for('the jump to the definition', function()
    return not vim.deep_equal(vim.api.nvim_win_get_cursor(0), spec.definition.cursor)
  end)
  check(vim.deep_equal(vim.api.nvim_win_get_cursor(0), target), 'definition jumps to ' .. vim.inspect(target),
    vim.api.nvim_win_get_cursor(0))
  check(vim.api.nvim_get_current_buf() == module, 'definition stays in the module buffer')

  -- Find references fills the quickfix list and opens it.
  vim.api.nvim_win_set_cursor(0, spec.references.cursor)
  vim.fn.setqflist({}, 'r', { title = 'before', items = {} })
  vim.lsp.buf.references()
  wait_for('the references in the quickfix list', function() return #vim.fn.getqflist() > 0 end)
  local found = {}
  for _, item in ipairs(vim.fn.getqflist()) do
    found[#found + 1] = { basename(vim.api.nvim_buf_get_name(item.bufnr)), item.lnum }
  end
  -- Both lists in one order (Lua compares strings by the locale's collation, Python by code point).
  local function by_place(a, b) return a[1] < b[1] or (a[1] == b[1] and a[2] < b[2]) end
  table.sort(found, by_place)
  local expected_references = vim.deepcopy(spec.references.expected)
  table.sort(expected_references, by_place)
  log('references:', #found)
  check(vim.deep_equal(found, expected_references), 'the quickfix list holds every reference', found)
  local quickfix_open = false
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    quickfix_open = quickfix_open or vim.bo[vim.api.nvim_win_get_buf(win)].buftype == 'quickfix'
  end
  check(quickfix_open, 'the quickfix window is open')
  vim.cmd('cclose')

  -- Code lenses: Neovim resolves the lenses that come without their command (codeLens/resolve).
  vim.lsp.codelens.refresh({ bufnr = module })
  local function lens_commands()
    local commands = {}
    for _, lens in ipairs(vim.lsp.codelens.get(module)) do
      if lens.command then
        commands[#commands + 1] = { lens.range.start.line, lens.command.title, lens.command.command,
          lens.command.arguments and #lens.command.arguments[3] or 0 }
      end
    end
    table.sort(commands, function(a, b) return a[1] < b[1] or (a[1] == b[1] and a[2] < b[2]) end)
    return commands
  end
  wait_for('the code lenses, resolved', function() return #lens_commands() == #spec.lenses end, 15000)
  log('lenses:', lens_commands())
  check(vim.deep_equal(lens_commands(), spec.lenses), 'the lenses and their commands', lens_commands())

  -- Diagnostics: the planted overlap, on both values, in the buffer-assignment file.
  local planted = open(spec.diagnostics.file, 'hlo_buffers')
  local expected = spec.diagnostics.expected
  wait_for('the diagnostics of the planted overlap', function()
    return #vim.diagnostic.get(planted) >= #expected
  end, 15000)
  local diagnostics = vim.diagnostic.get(planted)
  table.sort(diagnostics, function(a, b) return a.lnum < b.lnum end)
  local seen = {}
  for _, d in ipairs(diagnostics) do
    seen[#seen + 1] = { lnum = d.lnum, col = d.col, severity = d.severity, code = d.code, message = d.message }
  end
  log('diagnostics:', seen)
  check(#diagnostics == #expected, #expected .. ' diagnostics', seen)
  for i, want in ipairs(expected) do
    local d = diagnostics[i] or {}
    check(d.lnum == want.lnum and d.severity == vim.diagnostic.severity[want.severity]
      and d.code == want.code and type(d.message) == 'string' and vim.startswith(d.message, want.message_start)
      and d.message:find(want.message_contains, 1, true) ~= nil,
      'diagnostic ' .. i .. ' is ' .. vim.inspect(want), seen[i])
  end
  -- The clean module, served by the same client, has none.
  check(#vim.diagnostic.get(module) == 0, 'no diagnostics on the clean module', vim.diagnostic.get(module))
  check(hlo_client(planted).id == client.id, 'one server for both dump folders')
end)
