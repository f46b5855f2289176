#!/bin/sh
# merge_hostile.sh: merge keeps every case once and leaves nothing behind (issue 23, defect 6
# and merge's part of 10):
#   - the same database twice, through a symbolic link, or a copy of it: refused (exit 2),
#     saying its cases would count twice, and no output written;
#   - SIGTERM or SIGINT in the middle of a merge: exit 130, OUT not written, no
#     OUT.merging-XXXXXX (nor -wal, -shm) left;
#   - a cleanly closed WAL database in a folder the reader cannot write (a read-only mount; as
#     root the test reads it as user nobody): merge, export --db and replay --db read it;
#   - a damaged shard list (not integers, or unsorted) is refused, naming the list;
#   - the output gets 0666 less the umask, as run's databases do, not mkstemp's 0600;
#   - run on a database whose write lock another process holds past the busy timeout (10 s)
#     says that another dmlcheck probably holds it (SQLite says only "database is locked");
#     five runs started together on one database all finish (each gets its turns).
# Usage: merge_hostile.sh DMLCHECK SQLITE3.  Prints TAP.
set -u
dmlcheck=$1 sqlite=${2:-}
. "$(dirname "$0")/../lib/cli_tap.sh"
small="--backend reference --seed 3 --max-elements 16 --shrink-budget 0"
run run $small --cases 300 --db "$tmp/a.sqlite"
run run $small --cases 300 --seed 4 --db "$tmp/b.sqlite"
no_output() { [ ! -e "$tmp/out.sqlite" ] && ! ls "$tmp"/out.sqlite.merging-* >/dev/null 2>&1; }

run merge "$tmp/a.sqlite" "$tmp/a.sqlite" -o "$tmp/out.sqlite"
check "same_file_twice_is_refused" eval 'rc_is 2 && err_has "are the same database file" && no_output'
ln -s "$tmp/a.sqlite" "$tmp/link.sqlite"
run merge "$tmp/a.sqlite" "$tmp/link.sqlite" -o "$tmp/out.sqlite"
check "a_link_to_an_input_is_refused" eval 'rc_is 2 && err_has "are the same database file" && no_output'
cp "$tmp/a.sqlite" "$tmp/copy.sqlite"
run merge "$tmp/a.sqlite" "$tmp/b.sqlite" "$tmp/copy.sqlite" -o "$tmp/out.sqlite"
check "a_copy_of_an_input_is_refused" eval 'rc_is 2 && err_has "is already merged" && err_has "count twice" && no_output'
umask 022
run merge "$tmp/a.sqlite" "$tmp/b.sqlite" -o "$tmp/out.sqlite"
check "distinct_inputs_merge" eval 'rc_is 0 && out_has "600 cases"'
check "output_mode_is_0644_under_umask_022" [ "$(stat -c %a "$tmp/out.sqlite")" = 644 ]
rm -f "$tmp/out.sqlite"*

# Stops: a merge of 200,000 cases takes about a second; the signal comes once it has begun.
run run $small --cases 100000 --db "$tmp/big1.sqlite"
run run $small --cases 100000 --seed 5 --db "$tmp/big2.sqlite"
for sig in TERM INT; do
    "$dmlcheck" merge "$tmp/big1.sqlite" "$tmp/big2.sqlite" -o "$tmp/out.sqlite" >"$tmp/out" 2>"$tmp/err" &
    pid=$!
    for _ in $(seq 200); do
        ls "$tmp"/out.sqlite.merging-* >/dev/null 2>&1 && break
        sleep 0.01
    done
    sleep 0.2
    kill "-$sig" "$pid"
    wait "$pid"
    echo $? >"$tmp/rc"
    check "sig${sig}_stops_a_merge_leaving_nothing" eval 'rc_is 130 && err_has "stopped by a signal" && no_output'
    rm -f "$tmp/out.sqlite"*
done

# A read-only folder: the reader cannot create the -shm file.
mkdir "$tmp/ro"
cp "$tmp/a.sqlite" "$tmp/ro/a.sqlite"
chmod 755 "$tmp" "$tmp/ro"
chmod 644 "$tmp/ro/a.sqlite"
chmod a-w "$tmp/ro"
as_reader() {
    if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
        setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
    else
        "$@"
    fi
}
can_test_read_only=$( [ "$(id -u)" != 0 ] || command -v setpriv >/dev/null && echo yes)
mkdir "$tmp/w" && chmod 777 "$tmp/w"
read_only_run() {
    as_reader "$dmlcheck" "$@" >"$tmp/out" 2>"$tmp/err"
    echo $? >"$tmp/rc"
}
if [ -n "$can_test_read_only" ]; then
    read_only_run merge "$tmp/ro/a.sqlite" -o "$tmp/w/out.sqlite"
    check "merge_reads_a_read_only_wal_database" eval 'rc_is 0 && out_has "300 cases"'
    read_only_run export g5:3:5 --max-elements 16 --db "$tmp/ro/a.sqlite"
    check "export_db_reads_a_read_only_wal_database" eval 'rc_is 0 && out_has "\"input\""'
    read_only_run replay g5:3:5 --backend reference --max-elements 16 --db "$tmp/ro/a.sqlite"
    check "replay_db_reads_a_read_only_wal_database" eval 'rc_is 0 && ! all_has "not a dmlcheck"'
else
    for t in merge export_db replay_db; do skip "${t}_reads_a_read_only_wal_database" "no setpriv"; done
fi
chmod u+w "$tmp/ro"

# Damaged shard lists.
if [ -n "$sqlite" ]; then
    for list in '["x"]' '[3,1]' '[1.5]'; do
        run run $small --cases 40 --shard 1/4 --db "$tmp/s.sqlite"
        "$sqlite" "$tmp/s.sqlite" "UPDATE runs SET options = json_set(options, '\$.shard.indices', json('$list'))"
        rm -f "$tmp/out.sqlite"*
        run merge "$tmp/s.sqlite" -o "$tmp/out.sqlite"
        check "damaged_shard_list_${list}_is_refused" eval 'rc_is 2 && err_has "shard list is damaged" && no_output'
        rm -f "$tmp/s.sqlite"*
    done
else
    skip "damaged_shard_lists_are_refused" "no sqlite3 program"
fi

# A writer that holds the lock: run waits 10 s, then says who probably holds it.
if [ -n "$sqlite" ]; then
    (echo "BEGIN IMMEDIATE; DELETE FROM devices WHERE 0;"; sleep 13; echo "COMMIT;") | "$sqlite" "$tmp/a.sqlite" &
    holder=$!
    sleep 0.5
    run run $small --cases 50 --seed 9 --db "$tmp/a.sqlite"
    check "a_held_lock_is_said_to_be_another_writers" eval 'rc_is 2 && err_has "database is locked (another process, most likely another dmlcheck run"'
    wait "$holder"
    run run $small --cases 50 --seed 9 --db "$tmp/a.sqlite"
    check "the_database_is_whole_after_the_lock" rc_is 0
    # Five runs on one new database at once: each gets its turns at the lock and finishes.
    # (Before, a run committed a batch and took the lock again at once, while SQLite's own
    # busy handler slept up to 100 ms between tries: in an ASan build, where each run lasts
    # longer than the 10 s timeout, 2 of 5 gave up on "database is locked".)
    rm -f "$tmp/five.sqlite"*
    for seed in 1 2 3 4 5; do
        "$dmlcheck" run --backend reference --shrink-budget 0 --cases 20000 --seed "$seed" --db "$tmp/five.sqlite" \
            >"$tmp/five.$seed" 2>&1 &
    done
    wait
    check "five_concurrent_runs_all_finish" eval \
        '[ "$("$sqlite" "$tmp/five.sqlite" "SELECT count(*) FROM runs WHERE status = '"'finished'"' AND cases_done = 20000")" = 5 ]'
fi
finish
