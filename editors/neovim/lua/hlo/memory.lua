-- :HloMemoryTimeline — the memory timeline of the module of the current buffer, from the server's
-- `hlo.memoryTimeline` command (workspace/executeCommand).
--
-- The SVG picture (live bytes over program order, the peak marked, the largest buffers as bars) is
-- written to Neovim's temporary folder as <module>.memory.svg and opened with vim.ui.open (0.10+).
-- On older Neovim, with a bang (:HloMemoryTimeline!), or when the picture cannot be opened, the
-- buffers live at the peak are listed in a split instead; <CR> on a row jumps to its instruction.
local M = {}

M.COMMAND = 'hlo.memoryTimeline'

--- What the last run wrote: { module = ..., path = ... } (path is nil when the file could not be written).
M.last = nil

--- The hlo client attached to `bufnr`, or nil.
function M.client(bufnr)
  local get = vim.lsp.get_clients or vim.lsp.get_active_clients
  for _, client in ipairs(get({ bufnr = bufnr })) do
    if client.name == 'hlo' then
      return client
    end
  end
  return nil
end

--- client:request on Neovim 0.11+, client.request before.
function M.request(client, method, params, handler, bufnr)
  if vim.fn.has('nvim-0.11') == 1 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

--- 487464 -> '487,464'
function M.commas(count)
  local text = tostring(count)
  while true do
    local next_text, replaced = text:gsub('^(-?%d+)(%d%d%d)', '%1,%2')
    text = next_text
    if replaced == 0 then
      return text
    end
  end
end

--- Bytes as XLA prints them: 40B, 476.0KiB, 18.31MiB.
function M.human(count)
  if count < 1024 then
    return count .. 'B'
  end
  local units = { 'KiB', 'MiB', 'GiB', 'TiB', 'PiB' }
  local value, unit = count / 1024, 1
  while value >= 1024 and unit < #units do
    value, unit = value / 1024, unit + 1
  end
  return string.format(unit == 1 and '%.1f%s' or '%.2f%s', value, units[unit])
end

--- Where a picture of `name` goes: Neovim's temporary folder, `<name><suffix>`.
function M.picture_path(name, suffix)
  local folder = vim.fn.fnamemodify(vim.fn.tempname(), ':h')
  return folder .. '/' .. name:gsub('[^%w._-]', '_') .. suffix
end

--- Where the picture of `module` goes: <module>.memory.svg in Neovim's temporary folder.
function M.svg_path(module)
  return M.picture_path(module, '.memory.svg')
end

--- Writes `text` to `path`; whether it could.
function M.write(path, text)
  local file = io.open(path, 'w')
  if not file then
    return false
  end
  file:write(text)
  file:close()
  return true
end

--- The lines of the table, and for each line that lists a buffer, that buffer.
function M.table_lines(result, path)
  local peak = result.peak
  local lines = {
    result.module,
    string.format('peak %s bytes (%s) at step %s (%s), %d buffers', M.commas(peak.bytes), peak.human,
      tostring(peak.time), peak.instruction or '?', peak.buffers),
  }
  local split = {}
  for _, kind in ipairs({ 'parameter', 'constant', 'output', 'temporary', 'unallocated' }) do
    if peak.byKind[kind] then
      split[#split + 1] = kind .. ' ' .. M.human(peak.byKind[kind])
    end
  end
  lines[#lines + 1] = 'at the peak: ' .. table.concat(split, ', ')
  if path then
    lines[#lines + 1] = 'picture: ' .. path
  end
  lines[#lines + 1] = ''
  lines[#lines + 1] = string.format('%10s  %-32s %-9s %-10s %s', 'size', 'buffer', 'live', 'kind', 'op_name')
  local rows = {}
  for _, buffer in ipairs(result.buffers) do
    lines[#lines + 1] = string.format('%10s  %-32s %-9s %-10s %s', M.human(buffer.valueBytes), buffer.label,
      buffer.start .. '-' .. buffer['end'], buffer.kind, buffer.opName or '')
    rows[#lines] = buffer
  end
  return lines, rows
end

--- Jumps, from the window before, to a place an answer gives ({ uri = ..., range = ... }).
function M.jump(buffer, client)
  if not buffer.uri then
    return
  end
  local location = { uri = buffer.uri, range = buffer.range }
  vim.cmd('wincmd p')
  if vim.lsp.util.show_document then
    vim.lsp.util.show_document(location, client.offset_encoding, { focus = true })
  else
    vim.lsp.util.jump_to_location(location, client.offset_encoding)
  end
end

--- A split showing `lines`; <CR> on a line `places` holds a place for ({ uri = ..., range = ... }) goes there.
function M.places_split(lines, places, client)
  vim.cmd('botright new')
  local bufnr = vim.api.nvim_get_current_buf()
  vim.bo[bufnr].buftype = 'nofile'
  vim.bo[bufnr].bufhidden = 'wipe'
  vim.bo[bufnr].swapfile = false
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, lines)
  vim.bo[bufnr].modifiable = false
  vim.keymap.set('n', '<CR>', function()
    local place = places[vim.api.nvim_win_get_cursor(0)[1]]
    if place then
      M.jump(place, client)
    end
  end, { buffer = bufnr, desc = 'hlo-lsp: go to the instruction of this buffer' })
  return bufnr
end

--- The buffers live at the peak in a split; <CR> on a row jumps to its instruction.
function M.show_table(result, client, path)
  local lines, rows = M.table_lines(result, path)
  local bufnr = M.places_split(lines, rows, client)
  vim.b[bufnr].hlo_memory_timeline = result.module
  return bufnr
end

--- Shows an answer of the command: the picture when it can be opened, else the table.
function M.show(result, client, opts)
  local path = M.svg_path(result.module)
  local written = M.write(path, result.svg)
  M.last = { module = result.module, path = written and path or nil }
  if not written then
    vim.notify('hlo-lsp: cannot write ' .. path, vim.log.levels.WARN)
  end
  if written and not opts.table and vim.ui and vim.ui.open then
    local ok, opened, err = pcall(vim.ui.open, path)
    if ok and opened then
      vim.notify('hlo-lsp: memory timeline ' .. path)
      return
    end
    vim.notify('hlo-lsp: cannot open ' .. path .. ': ' .. tostring(ok and err or opened), vim.log.levels.WARN)
  end
  M.show_table(result, client, written and path or nil)
end

--- Runs the server's `command` with the arguments `arguments(bufnr)` gives for the current buffer, through its
--- hlo client; `on_answer(answer, client)` with what it answers (an error is notified).
function M.execute(command, arguments, on_answer)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = M.client(bufnr)
  if not client then
    vim.notify('hlo-lsp: no hlo client is attached to this buffer', vim.log.levels.WARN)
    return
  end
  local params = { command = command, arguments = arguments(bufnr) }
  M.request(client, 'workspace/executeCommand', params, function(err, answer)
    if err then
      vim.notify('hlo-lsp: ' .. command .. ': ' .. (err.message or tostring(err)), vim.log.levels.ERROR)
    else
      on_answer(answer, client)
    end
  end, bufnr)
end

--- Asks the server for the memory timeline of the current buffer's module.
--- opts.table: list the buffers in a split instead of opening the picture.
function M.timeline(opts)
  opts = opts or {}
  M.execute(M.COMMAND, function(bufnr) return { vim.uri_from_bufnr(bufnr) } end, function(result, client)
    if result == nil or result == vim.NIL then
      vim.notify('hlo-lsp: no memory timeline: the module has no live-range section', vim.log.levels.WARN)
    else
      M.show(result, client, opts)
    end
  end)
end

--- Defines :HloMemoryTimeline (and :HloMemoryTimeline! for the table); safe to call more than once.
function M.create_command()
  vim.api.nvim_create_user_command('HloMemoryTimeline', function(args)
    M.timeline({ table = args.bang })
  end, { bang = true, force = true, desc = 'hlo-lsp: memory timeline of this module (! lists the peak)' })
end

return M
