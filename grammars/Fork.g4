// Fork.g4: the subset of Fork, the PRAM language of Keßler, Keller and
// Träff, that gpuc compiles. It is C with processor groups: sh/pr storage
// classes, $ and @, start, seq, farm, fork, barrier, sync/async functions
// and the SB-PRAM multiprefix operations. frontends/fork lowers the parse
// tree into gpuc's kernel IR at the SPMD level.
//
// The grammar is deliberately permissive where a precise message is more
// useful than a syntax error: qualifiers may repeat or clash, any
// expression may stand left of '=', string literals may appear anywhere,
// and calls name any identifier (printf, error, groupsize and the
// multiprefix operations are ordinary calls here). frontends/fork checks all of that,
// and the shape that recursive sync functions must have (a fork as the
// last statement, recursive calls ending its paths, subgroups that are
// contiguous runs of $; see the package documentation of frontends/fork).
grammar Fork;

program : topDecl* EOF ;

topDecl
    : varDecl                                                # globalVar
    | funcMode? typeName IDENT '(' params? ')' block         # funcDef
    ;

funcMode : 'sync' | 'async' ;

params
    : param (',' param)*
    | 'void'
    ;

// int a[] and int a[][M] pass arrays; a size in the first brackets is
// allowed and ignored, as in C.
param : qualifier* typeName IDENT (arrayParam)? ;
arrayParam : '[' rows=expr? ']' ('[' cols=expr ']')? ;

qualifier : 'sh' | 'pr' | 'static' | 'const' ;

typeName
    : 'void'
    | 'bool'
    | 'char'
    | 'int'
    | 'unsigned' ('int' | 'long' 'int'? | 'long' 'long' 'int'?)?
    | 'long' 'int'?
    | 'long' 'long' 'int'?
    | 'float'
    | 'double'
    ;

varDecl    : qualifier* typeName declarator (',' declarator)* ';' ;
// int a[] = {...} takes its length from the initializer.
declarator : IDENT (open='[' rows=expr? ']' ('[' cols=expr ']')?)? ('=' initializer)? ;
initializer
    : expr                                                   # exprInit
    | '{' (initializer (',' initializer)* ','?)? '}'         # listInit
    ;

block : '{' blockItem* '}' ;
blockItem : varDecl | stmt ;

stmt
    : block                                                            # blockStmt
    | expr? ';'                                                        # exprStmt
    | 'if' '(' expr ')' stmt ('else' stmt)?                            # ifStmt
    | 'while' '(' expr ')' stmt                                        # whileStmt
    | 'do' stmt 'while' '(' expr ')' ';'                               # doStmt
    | 'for' '(' forInit? ';' cond=expr? ';' post=exprList? ')' stmt    # forStmt
    | 'break' ';'                                                      # breakStmt
    | 'continue' ';'                                                   # continueStmt
    | 'return' expr? ';'                                               # returnStmt
    | 'start' ('(' procs=expr ')')? stmt                               # startStmt
    | 'seq' stmt                                                       # seqStmt
    | 'farm' stmt                                                      # farmStmt
    | 'fork' '(' count=expr ';' '@' '=' group=expr (';' '$' '=' member=expr)? ')' stmt # forkStmt
    | 'barrier' ';'                                                    # barrierStmt
    ;

forInit  : forDecl | exprList ;
forDecl  : qualifier* typeName declarator (',' declarator)* ;
exprList : expr (',' expr)* ;

// Alternatives are listed from the tightest binding to the loosest, as in
// C; ANTLR turns the left recursion into precedence climbing.
expr
    : primary                                                           # primaryExpr
    | IDENT '(' args? ')'                                               # callExpr
    | expr '[' expr ']'                                                 # indexExpr
    | expr op=('++' | '--')                                             # postfixExpr
    | op=('++' | '--') expr                                             # prefixExpr
    | op=('-' | '+' | '!' | '~') expr                                   # unaryExpr
    | '&' expr                                                          # addressExpr
    | '(' typeName ')' expr                                             # castExpr
    | expr op=('*' | '/' | '%') expr                                    # binaryExpr
    | expr op=('+' | '-') expr                                          # binaryExpr
    | expr op=('<<' | '>>') expr                                        # binaryExpr
    | expr op=('<' | '<=' | '>' | '>=') expr                            # binaryExpr
    | expr op=('==' | '!=') expr                                        # binaryExpr
    | expr op='&' expr                                                  # binaryExpr
    | expr op='^' expr                                                  # binaryExpr
    | expr op='|' expr                                                  # binaryExpr
    | expr op='&&' expr                                                 # binaryExpr
    | expr op='||' expr                                                 # binaryExpr
    | <assoc = right> expr '?' expr ':' expr                            # condExpr
    | <assoc = right> expr op=('=' | '+=' | '-=' | '*=' | '/=' | '%=' | '&=' | '|=' | '^=' | '<<=' | '>>=') expr # assignExpr
    ;

args : expr (',' expr)* ;

primary
    : INT                # intLit
    | FLOAT              # floatLit
    | CHAR               # charLit
    | STRING+            # stringLit
    | ('true' | 'false') # boolLit
    | '$'                # procId
    | '@'                # groupId
    | IDENT              # name
    | '(' expr ')'       # paren
    ;

INT    : ([0-9]+ | '0' [xX] [0-9a-fA-F]+) [uUlL]* ;
FLOAT  : ([0-9]+ '.' [0-9]* | '.' [0-9]+) ([eE] [+-]? [0-9]+)? [fFlL]?
       | [0-9]+ [eE] [+-]? [0-9]+ [fFlL]?
       ;
CHAR   : '\'' (~['\\\r\n] | ESCAPE) '\'' ;
STRING : '"' (~["\\\r\n] | ESCAPE)* '"' ;
IDENT  : [a-zA-Z_] [a-zA-Z0-9_]* ;

fragment ESCAPE : '\\' ('x' [0-9a-fA-F]+ | [0-7] [0-7]? [0-7]? | ~[\r\nx0-7]) ;

LINE_COMMENT  : '//' ~[\r\n]* -> skip ;
BLOCK_COMMENT : '/*' .*? '*/' -> skip ;
// #include and friends are accepted and ignored, so that Fork sources
// written for the SB-PRAM tool chain load unchanged.
PREPROCESSOR  : '#' ~[\r\n]* -> skip ;
WS            : [ \t\r\n]+ -> skip ;
