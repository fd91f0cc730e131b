-- :HloCompare {path} — what grew from the current buffer's dump to another (a dump folder or any file of a
-- module), from the server's `hlo.compare` command (workspace/executeCommand).
--
-- The rows (each buffer live at either peak, matched by what it is, largest change first) go to a split;
-- <CR> on a row opens its instruction in B (in A for a buffer only in A). The quickfix list gets the same
-- rows (:copen). The picture of each pair (both timelines on one scale) is written to Neovim's temporary
-- folder as <module>.compare.svg, and named in the split.
local memory = require('hlo.memory')

local M = {}

M.COMMAND = 'hlo.compare'

--- What the last run showed: { answer = ..., pictures = { path, ... } }.
M.last = nil

local function signed(count)
  if count == 0 then
    return '0'
  end
  return (count > 0 and '+' or '-') .. memory.human(math.abs(count))
end

local function percent(pair)
  return pair.deltaPercent ~= nil and pair.deltaPercent ~= vim.NIL and string.format(', %+.1f%%', pair.deltaPercent)
    or ''
end

local function side_text(side, other)
  if side == nil or side == vim.NIL then
    return 'only in ' .. other
  end
  return side.label .. ' ' .. memory.human(side.bytes)
end

--- The place a row opens: its instruction in B, else in A.
local function place(row)
  for _, side in ipairs({ row.b, row.a }) do
    if side ~= nil and side ~= vim.NIL and side.uri then
      return side
    end
  end
  return nil
end

--- Where the picture of the pair `name` goes: <name>.compare.svg in Neovim's temporary folder.
function M.svg_path(name)
  return memory.picture_path(name, '.compare.svg')
end

--- The lines of one pair, and for each line that is a row, that row.
local function pair_lines(pair, picture, lines, rows)
  lines[#lines + 1] = pair.name .. (pair.pairedBy ~= 'name' and (' (paired by ' .. pair.pairedBy .. ')') or '')
  lines[#lines + 1] = 'A: ' .. pair.a.path
  lines[#lines + 1] = 'B: ' .. pair.b.path
  lines[#lines + 1] = string.format('peak %s → %s bytes (%s → %s): %s bytes (%s%s)', memory.commas(pair.a.peak),
    memory.commas(pair.b.peak), pair.a.human, pair.b.human, (pair.delta > 0 and '+' or '') .. memory.commas(pair.delta),
    signed(pair.delta), percent(pair))
  lines[#lines + 1] = string.format('%d rows, %.1f%% of B\'s peak matched to A\'s', #pair.buffers,
    100 * (pair.matchedShare ~= vim.NIL and pair.matchedShare or 1))
  if picture then
    lines[#lines + 1] = 'picture: ' .. picture
  end
  lines[#lines + 1] = ''
  lines[#lines + 1] = string.format('%10s  %-34s → %-34s %-10s %s', 'change', 'A', 'B', 'kind', 'op')
  for _, row in ipairs(pair.buffers) do
    lines[#lines + 1] = string.format('%10s  %-34s → %-34s %-10s %s', signed(row.delta), side_text(row.a, 'B'),
      side_text(row.b, 'A'), row.kind, row.opName ~= vim.NIL and row.opName or '')
    rows[#lines] = row
  end
  lines[#lines + 1] = ''
end

--- The lines of the whole answer (each pair, then what was not paired) and the rows by line.
function M.lines(answer, pictures)
  local lines, rows = {}, {}
  for number, pair in ipairs(answer.pairs) do
    pair_lines(pair, pictures[number], lines, rows)
  end
  for _, unpaired in ipairs(answer.unpaired) do
    lines[#lines + 1] = string.format('only in %s: %s (%s)', unpaired.side:upper(), unpaired.name, unpaired.path)
  end
  if #answer.pairs == 0 then
    table.insert(lines, 1, 'nothing to compare: no module with a memory peak on both sides')
  end
  return lines, rows
end

--- The rows as quickfix items, at their instruction in B (in A for a row only in A).
function M.quickfix_items(answer, client)
  local items = {}
  for _, pair in ipairs(answer.pairs) do
    for _, row in ipairs(pair.buffers) do
      local side = place(row)
      if side then
        local item = vim.lsp.util.locations_to_items({ { uri = side.uri, range = side.range } },
          client.offset_encoding)[1]
        item.text = string.format('%s %s: %s → %s', pair.name, signed(row.delta), side_text(row.a, 'B'),
          side_text(row.b, 'A'))
        items[#items + 1] = item
      end
    end
  end
  return items
end

--- Shows an answer: the pictures written, the rows in a split and in the quickfix list.
function M.show(answer, client)
  local pictures, named = {}, {}
  for _, pair in ipairs(answer.pairs) do
    named[pair.name] = (named[pair.name] or 0) + 1
  end
  for number, pair in ipairs(answer.pairs) do
    -- two pairs of one name (two compilations of one function): told apart by their place in the answer
    local path = M.svg_path(named[pair.name] > 1 and (pair.name .. '.' .. number) or pair.name)
    pictures[number] = memory.write(path, pair.svg) and path or nil
  end
  M.last = { answer = answer, pictures = pictures }
  local lines, rows = M.lines(answer, pictures)
  vim.fn.setqflist({}, ' ', { title = 'hlo-lsp: compare', items = M.quickfix_items(answer, client) })
  local places = {}
  for line, row in pairs(rows) do
    places[line] = place(row)
  end
  local bufnr = memory.places_split(lines, places, client)
  vim.b[bufnr].hlo_compare = true
  return bufnr
end

--- Compares the current buffer's dump (A) with `path` (B: a dump folder or any file of a module).
function M.compare(path)
  local other = vim.fn.fnamemodify(vim.fn.expand(path), ':p'):gsub('/$', '')
  memory.execute(M.COMMAND, function(bufnr)
    return { vim.uri_from_bufnr(bufnr), vim.uri_from_fname(other) }
  end, M.show)
end

--- Defines :HloCompare {path}; safe to call more than once.
function M.create_command()
  vim.api.nvim_create_user_command('HloCompare', function(args)
    M.compare(args.args)
  end, { nargs = 1, complete = 'file', force = true,
    desc = 'hlo-lsp: what grew from this dump to another (a dump folder or a file of a module)' })
end

return M
