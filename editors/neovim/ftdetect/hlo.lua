-- Sourced by `:filetype on` (and by lazy.nvim for a plugin it loads lazily).
require('hlo.filetype').add()
