; JSX (JavaScript and TSX): a capitalized element is a call of the component it names.
(jsx_opening_element) @jsx
(jsx_self_closing_element) @jsx
(jsx_expression [(identifier) (member_expression)] @ref)
