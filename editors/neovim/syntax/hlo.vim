" Vim syntax file
" Language: XLA HLO module text (hlo-lsp)
" A modest highlighter: names, opcodes, shapes, attributes, literals and comments.

if exists('b:current_syntax')
  finish
endif

syntax case match

syntax keyword hloKeyword HloModule ENTRY ROOT
syntax keyword hloTable FileNames FunctionNames FileLocations StackFrames
syntax keyword hloBoolean true false

" Operands, definitions and computations: %name.1 (and computation names after calls= etc.)
syntax match hloName /%[A-Za-z_][A-Za-z0-9_.\-]*/
" An opcode: the word just before the operand list, after the shape: `f32[8]{0} add(`
syntax match hloOpcode /\<[a-z][a-z0-9\-]*\ze(/
" Shapes: f32[8,16]{1,0}, pred[], token[], s32[<=4] with an optional layout
syntax match hloShape /\<\(pred\|token\|opaque\|[fsuc][0-9]\+\|bf16\|f8e[0-9a-z]\+\|f4e[0-9a-z]\+\)\[[0-9,<=?]*\]\({[^{}]*}\)\?/
syntax match hloAttribute /\<[a-z_][a-z0-9_]*\ze=/
syntax match hloNumber /\<-\?[0-9]\+\(\.[0-9]\+\)\?\([eE][-+]\?[0-9]\+\)\?\>/
syntax keyword hloNumber inf nan
syntax region hloString start=/"/ skip=/\\./ end=/"/ oneline
syntax match hloComment +//.*$+ contains=@Spell
syntax region hloComment start=+/\*+ end=+\*/+

highlight default link hloKeyword Keyword
highlight default link hloTable Title
highlight default link hloBoolean Boolean
highlight default link hloName Identifier
highlight default link hloOpcode Function
highlight default link hloShape Type
highlight default link hloAttribute PreProc
highlight default link hloNumber Number
highlight default link hloString String
highlight default link hloComment Comment

let b:current_syntax = 'hlo'
