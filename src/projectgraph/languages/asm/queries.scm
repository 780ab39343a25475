; Assembly at the generic tier: the vocabulary is in projectgraph/languages/generic.py.
; A label is a function that runs to the next label (GenericLanguage.flat); a local label (`.loop`,
; `1:`) belongs to the label before it.

(label (ident) @name (#not-match? @name "^[.0-9]")) @definition.function

; `call f`, `jmp f` (a tail call), `bl f`, `jal f`, and conditional jumps: control goes to the label.
; A register operand (`call rax`) is an indirect call: no name to link.
(instruction kind: (word) @_k (ident) @call.name
  (#match? @_k "(?i)^(call[lqw]?|jmp[lqw]?|j[a-z]{1,3}|bl|blx|b|bx|jal|jalr|bsr|bra|tail)$")
  (#match? @call.name "^[A-Za-z_$][\\w$@]*$")
  (#not-match? @call.name "^([re]?[abcd]x|[abcd][lh]|[re]?[sd]il?|[re]?[sb]pl?|r[0-9]+[dwb]?|[xw][0-9]+|lr|pc|sp|ra|t[0-9]|a[0-9]|s[0-9]+)$"))
  @call
; an indirect call (`call rax`, `call [rbx + 8]`, `blr x1`) calls what no name says
(instruction kind: (word) @_k [(ident) (ptr)] @call.member
  (#match? @_k "(?i)^(call[lqw]?|blr|blx|jalr)$")
  (#match? @call.member "^\\[|^\\*|^([re]?[abcd]x|[re]?[sd]i|[re]?[sb]p|r[0-9]+|[xw][0-9]+|ra|t[0-9]|a[0-9])$"))
  @call

(meta kind: (meta_ident) @_k (string) @import.module (#match? @_k "^\\.(include|incbin)$")) @import.include
(instruction kind: (word) @_k (string) @import.module (#eq? @_k "include")) @import.include

[(line_comment) (block_comment)] @comment
