% chr_dump/0 prints the CHR store as gpuc does (Note [Output] in
% frontends/chr): one constraint per line, sorted in the standard order of
% terms, integers as writeq/1 writes them, floats as C's %.15e.
% chr_dump(M) prints the store of the program loaded into module M
% (current_chr_constraint/1 takes its module from the context).
chr_dump :- chr_dump(user).

chr_dump(M) :-
    findall(C, (M:current_chr_constraint(C0), unqualify(C0, C)), L),
    msort(L, S),
    forall(member(X, S), (dump_term(X), nl)).

unqualify(_:C, C) :- !.
unqualify(C, C).

dump_term(T) :-
    T =.. [F|As],
    writeq(F),
    (   As == []
    ->  true
    ;   write('('), dump_args(As), write(')')
    ).

dump_args([A]) :- dump_arg(A).
dump_args([A,B|R]) :- dump_arg(A), write(','), dump_args([B|R]).

dump_arg(A) :- float(A), !, format("~15e", [A]).
dump_arg(A) :- writeq(A).
