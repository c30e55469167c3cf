% chr_swi.pl: SWI-Prolog timings for scripts/bench-chr.sh. Load a CHR
% program (its ?- query cut out) and this file, then call
% chr_bench(Workload, Size): it posts the workload's constraints, with
% the same formulas as chr_gen.c, and prints the CPU time of the CHR
% execution (posting included, as CHR runs rules while constraints are
% posted) as "swi-prolog X ms", and the store's size.
:- use_module(library(chr)).

chr_bench(Workload, N) :-
    statistics(cputime, T0),
    post(Workload, N),
    statistics(cputime, T1),
    Ms is (T1 - T0) * 1000,
    format(user_error, "swi-prolog ~3f ms~n", [Ms]),
    findall(x, current_chr_constraint(_), L),
    length(L, Len),
    format(user_error, "store: ~d constraints~n", [Len]).

weight(I, J, W) :- W is ((I * 2654435761 + J * 40503) mod 4294967296) mod 100 + 1.
value(I, V) :- V is (I * 2654435761 + 12345) mod 4294967296.

% The loops recurse rather than use forall/2, whose backtracking would
% undo the constraints.
post(fw, N) :- fw_rows(0, N).
post(min, N) :- min_from(0, N).
post(gcd, N) :- gcd_from(0, N).
post(sum, N) :- sum_from(0, N).
post(primes, N) :- range(2, N, N).

fw_rows(I, N) :- I >= N, !.
fw_rows(I, N) :- fw_cols(I, 0, N), I1 is I + 1, fw_rows(I1, N).

fw_cols(_, J, N) :- J >= N, !.
fw_cols(I, J, N) :-
    (   I =:= J
    ->  true
    ;   weight(I, J, W), edge(I, J, W)
    ),
    J1 is J + 1,
    fw_cols(I, J1, N).

min_from(I, N) :- I >= N, !.
min_from(I, N) :- value(I, V), min(V), I1 is I + 1, min_from(I1, N).

gcd_from(I, N) :- I >= N, !.
gcd_from(I, N) :- value(I, V), G is 6 * (V mod 1000000 + 1), gcd(G), I1 is I + 1, gcd_from(I1, N).

sum_from(I, N) :- I >= N, !.
sum_from(I, N) :- value(I, V), sum(V), I1 is I + 1, sum_from(I1, N).
