" Vim syntax file
" Language: XLA buffer assignment, live range and memory usage report dumps (hlo-lsp)

if exists('b:current_syntax')
  finish
endif

syntax case match

" Section headers: `BufferAssignment:`, `Used values:`, `HloLiveRange (max 15):`, `InstructionSequence:`
syntax match hloBuffersSection /^\s*\(BufferAssignment\|BufferAssignment stats\|Used values\|Total bytes used\|Total bytes\|HloLiveRange\|InstructionSequence\|BufferLiveRange\|Live ranges at \S\+\|Memory Space\|Allocations sorted by size\)\>/
syntax match hloBuffersAllocation /\<allocation [0-9]\+\ze:/
" A value: <62 ynn_fusion.1 @0>
syntax match hloBuffersValue /<[0-9]\+ [^ >]\+ @[0-9]\+>/
syntax match hloBuffersKey /^\s*\(value\|positions\|uses\|from instruction\):/
syntax match hloBuffersName /%[A-Za-z_][A-Za-z0-9_.\-]*/
syntax match hloBuffersShape /\<\(pred\|token\|opaque\|[fsuc][0-9]\+\|bf16\|f8e[0-9a-z]\+\|f4e[0-9a-z]\+\)\[[0-9,<=?]*\]\({[^{}]*}\)\?/
syntax match hloBuffersKind /\<\(preallocated-temp\|thread-local\|maybe-live-out\|constant\|parameter\|output shape is\)\>/
syntax match hloBuffersNumber /\<[0-9]\+\(\.[0-9]\+\)\?\([KMGT]iB\|B\)\?\>/
syntax region hloBuffersString start=/"/ skip=/\\./ end=/"/ oneline

highlight default link hloBuffersSection Title
highlight default link hloBuffersAllocation Statement
highlight default link hloBuffersValue Identifier
highlight default link hloBuffersKey Keyword
highlight default link hloBuffersName Identifier
highlight default link hloBuffersShape Type
highlight default link hloBuffersKind Constant
highlight default link hloBuffersNumber Number
highlight default link hloBuffersString String

let b:current_syntax = 'hlo_buffers'
