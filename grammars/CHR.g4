// CHR.g4: Prolog clause syntax with the operators that SWI-Prolog's CHR
// library defines, enough to read CHR programs written for SWI-Prolog.
// frontends/chr reads the resulting terms as declarations, rules, queries
// and the Prolog clauses it refuses, and lowers them into gpuc's kernel IR.
//
// The grammar reads terms, not CHR: a rule is the term
// `Name @ Kept \ Removed <=> Guard | Body`, and the frontend takes it apart.
// It is permissive on purpose, so that constructs outside gpuc's subset
// (cuts, disjunctions, lists, strings, pragmas) parse and get a
// diagnostic that names them. Arguments of a compound term are parsed as
// one term and split at top-level commas; parentheses keep a comma term
// whole. Operators and priorities follow SWI-Prolog (op/3 tables of the
// system and of library(chr)); user-defined operators are not read.
grammar CHR;

program : clause* EOF ;

clause : term END ;

// Alternatives bind tighter the earlier they come.
term
    : primary                                                        # primaryTerm
    | <assoc=right> term op='**' term                                # powTerm
    | <assoc=right> term op='^' term                                 # powTerm
    | op=('-' | '+' | '\\' | '?') term                               # prefixTerm
    | term op=('*' | '/' | '//' | 'mod' | 'rem' | 'div' | '<<' | '>>' | 'xor') term   # mulTerm
    | term op=('+' | '-' | '/\\' | '\\/') term                       # addTerm
    | term op=('=' | '\\=' | '==' | '\\==' | '<' | '>' | '=<' | '>=' | '=:=' | '=\\='
              | 'is' | '@<' | '@>' | '@=<' | '@>=' | '=..') term      # cmpTerm
    | term op=':' term                                               # colonTerm
    | term op='#' term                                               # hashTerm
    | op='\\+' term                                                  # notTerm
    | <assoc=right> term op=',' term                                 # commaTerm
    | op=('chr_constraint' | 'constraints' | 'chr_type' | 'dynamic' | 'discontiguous') term  # declTerm
    | <assoc=right> term op='->' term                                # ifTerm
    | <assoc=right> term op=(';' | '|') term                         # orTerm
    | term op='\\' term                                              # backslashTerm
    | term op=('<=>' | '==>') term                                   # ruleTerm
    | term op='pragma' term                                          # pragmaTerm
    | term op='@' term                                               # namedTerm
    | term op=(':-' | '-->') term                                    # clauseTerm
    | op=(':-' | '?-') term                                          # directiveTerm
    ;

primary
    : name=atom '(' term ')'                                         # compound
    | INT                                                            # int
    | FLOAT                                                          # float
    | VAR                                                            # var
    | atom                                                           # atomTerm
    | '(' term ')'                                                   # paren
    | '[' term? ']'                                                  # list
    | '{' term '}'                                                   # curly
    | STRING                                                         # string
    | '!'                                                            # cut
    ;

// Words that are also operators may name atoms and functors.
atom
    : NAME | QUOTED | SYMBOL
    | 'mod' | 'rem' | 'div' | 'xor' | 'is' | 'pragma'
    | 'chr_constraint' | 'constraints' | 'chr_type' | 'dynamic' | 'discontiguous'
    ;

INT    : [0-9]+ ;
FLOAT  : [0-9]+ '.' [0-9]+ ([eE] [+-]? [0-9]+)? | [0-9]+ [eE] [+-]? [0-9]+ ;
VAR    : [A-Z_] [a-zA-Z0-9_]* ;
NAME   : [a-z] [a-zA-Z0-9_]* ;
QUOTED : '\'' (~['\\\r\n] | '\\' . | '\'\'')* '\'' ;
STRING : '"' (~["\\\r\n] | '\\' .)* '"' | '`' (~[`\r\n])* '`' ;
// The end of a clause: a full stop followed by layout or a comment.
END    : '.' ([ \t\r\n] | '%' ~[\r\n]*) ;
// Any other run of symbol characters is an atom, as in Prolog.
SYMBOL : [+\-*/\\^<>=~:?@#&$]+ | [\u0080-\uFFFF] ;

LINE_COMMENT  : '%' ~[\r\n]* -> skip ;
BLOCK_COMMENT : '/*' .*? '*/' -> skip ;
WS            : [ \t\r\n]+ -> skip ;
