//! The contract's self-check (SPEC.md §8), run when the extension is created:
//! the core's own check, then every line of the core's self-check vectors
//! through the extension's *SQL* functions — their argument and result
//! conversions and their error mapping included. On the first line SQL
//! answers differently, `CREATE EXTENSION` fails, naming that line.

use pgrx::prelude::*;

/// Checks this build's core against the contract's own vectors: true, or an ERROR naming the mismatch.
#[pg_extern(immutable, parallel_safe)]
fn emq_self_check() -> bool {
    match emq::self_check() {
        Ok(()) => true,
        Err(m) => pgrx::error!("self_check: {m}"),
    }
}
extension_sql!(
    "COMMENT ON FUNCTION emq_self_check() IS 'True when this build''s core answers the contract''s own vectors; otherwise an error naming the mismatch.';",
    name = "emq_self_check_comment",
    requires = [emq_self_check],
);

/// The contract's self-check vectors as the core gives them: one check per
/// line (`decode <id> <ns> <snowflake> …`, `reject <input> <gate>`, …), the
/// input of `emq_host_check`.
#[pg_extern(immutable, parallel_safe)]
fn emq_self_check_vectors() -> &'static str {
    emq::SELF_CHECK_VECTORS
}
extension_sql!(
    "COMMENT ON FUNCTION emq_self_check_vectors() IS 'The contract''s self-check vectors, one check per line: the input of emq_host_check.';",
    name = "emq_self_check_vectors_comment",
    requires = [emq_self_check_vectors],
);

// Last in the script: the check calls every function above, then runs.
extension_sql!(
    r#"
-- What it does is its COMMENT, below. A refusal a line expects must name the
-- line's gate first in its message and carry that gate's SQLSTATE from emq_gates().
CREATE FUNCTION emq_host_check(vectors text) RETURNS int
LANGUAGE plpgsql STRICT AS $check$
DECLARE
    n int := 0;
    checked int := 0;
    line text;
    w text[];
    want text;
    got text;
    refused_with text;
    s bigint;
    b branded_id;
    step1 record;
    step2 record;
BEGIN
    FOREACH line IN ARRAY string_to_array(vectors, E'\n') LOOP
        n := n + 1;
        CONTINUE WHEN line = '';
        w := string_to_array(line, ' ');
        -- The answers follow the inputs; their count depends on the check.
        want := array_to_string(w[2 + CASE w[1]
            WHEN 'encode' THEN 2 WHEN 'encode_reject' THEN 2
            WHEN 'mint' THEN 3 WHEN 'key' THEN 3 WHEN 'key_reject' THEN 3
            ELSE 1 END:], ' ');
        BEGIN
            CASE w[1]
            WHEN 'decode' THEN
                s := emq_decode(w[2]);
                got := concat_ws(' ', emq_ns(w[2]), s, emq_unix_ms(s), emq_node(s), emq_seq(s), emq_hash32(s));
                b := w[2]::branded_id;
                IF b::text IS DISTINCT FROM w[2] OR emq_snowflake(b) IS DISTINCT FROM s THEN
                    got := got || format(' (as branded_id: %s %s)', b, emq_snowflake(b));
                END IF;
                IF NOT emq_is_valid(w[2]) THEN
                    got := got || ' (emq_is_valid: false)';
                END IF;
            WHEN 'reject' THEN
                got := 'accepted as ' || emq_decode(w[2]);
            WHEN 'encode', 'encode_reject' THEN
                IF w[3]::numeric <= 9223372036854775807 THEN
                    got := emq_encode(w[2], w[3]::bigint);
                    IF branded_id(w[2], w[3]::bigint)::text IS DISTINCT FROM got THEN
                        got := got || format(' (as branded_id: %s)', branded_id(w[2], w[3]::bigint));
                    END IF;
                ELSE
                    got := emq_encode_numeric(w[2], w[3]::numeric);
                END IF;
            WHEN 'min_for' THEN
                got := emq_min_for_ms(w[2]::bigint);
                s := emq_min_for(timestamptz 'epoch' + w[2]::bigint * interval '1 millisecond');
                IF s::text IS DISTINCT FROM got THEN
                    got := got || format(' (from a timestamptz: %s)', s);
                END IF;
            WHEN 'mint' THEN
                SELECT * INTO step1 FROM emq_mint_step(0, w[2]::int, w[3]::bigint);
                SELECT * INTO step2 FROM emq_mint_step(step1.state, w[2]::int, w[4]::bigint);
                got := step1.snowflake || ' ' || step2.snowflake;
            WHEN 'slot' THEN
                got := emq_slot(w[2]);
                IF emq_slot(convert_to(w[2], 'UTF8'))::text IS DISTINCT FROM got THEN
                    got := got || format(' (bytea: %s)', emq_slot(convert_to(w[2], 'UTF8')));
                END IF;
            WHEN 'hashtag' THEN
                got := emq_hashtag(w[2]);
                IF convert_from(emq_hashtag(convert_to(w[2], 'UTF8')), 'UTF8') IS DISTINCT FROM got THEN
                    got := got || format(' (bytea: %s)', emq_hashtag(convert_to(w[2], 'UTF8')));
                END IF;
            WHEN 'key', 'key_reject' THEN
                got := emq_key(w[2], w[3], NULLIF(w[4], '-'));
                IF w[4] = '-' AND emq_queue_key(w[2], w[3]) IS DISTINCT FROM got THEN
                    got := got || format(' (emq_queue_key: %s)', emq_queue_key(w[2], w[3]));
                ELSIF w[3] = 'job' AND emq_job_key(w[2], w[4]) IS DISTINCT FROM got THEN
                    got := got || format(' (emq_job_key: %s)', emq_job_key(w[2], w[4]));
                END IF;
            WHEN 'xadd_id' THEN
                got := emq_xadd_id(w[2]);
                IF emq_from_xadd_id(got, emq_ns(w[2])) IS DISTINCT FROM w[2] THEN
                    got := got || format(' (back: %s)', emq_from_xadd_id(got, emq_ns(w[2])));
                END IF;
            ELSE
                got := 'no such check';
            END CASE;
        EXCEPTION WHEN OTHERS THEN
            -- A refusal answers its gate when it is one: the gate opens the
            -- message and the SQLSTATE is that gate's for the kind of input.
            got := split_part(SQLERRM, ':', 1);
            SELECT CASE w[1] WHEN 'reject' THEN g.text_sqlstate ELSE g.value_sqlstate END
                INTO refused_with FROM emq_gates() g WHERE g.gate = got;
            IF w[1] NOT IN ('reject', 'encode_reject', 'key_reject') OR SQLSTATE IS DISTINCT FROM refused_with THEN
                got := format('ERROR %s: %s', SQLSTATE, SQLERRM);
            END IF;
        END;
        IF w[1] = 'reject' AND emq_is_valid(w[2]) THEN
            got := got || ' (emq_is_valid: true)';
        END IF;
        IF got IS DISTINCT FROM want THEN
            RAISE EXCEPTION 'emq_id self-check failed: line % "%" disagrees with the SQL API, which answered "%"',
                n, line, coalesce(got, 'nothing')
                USING ERRCODE = 'internal_error',
                      HINT = 'This build answers the contract''s own vectors differently from emq-id: do not use it.';
        END IF;
        checked := checked + 1;
    END LOOP;
    IF checked = 0 THEN
        RAISE EXCEPTION 'emq_id self-check failed: no vectors to check' USING ERRCODE = 'internal_error';
    END IF;
    RETURN checked;
END
$check$;
COMMENT ON FUNCTION emq_host_check(text) IS 'Runs self-check vectors (the format of emq_self_check_vectors()) through this extension''s SQL functions: the number of lines checked, or an internal_error (XX000) naming the first line answered differently.';

-- Refuse to be created by a build that disagrees with the contract (SPEC.md §8).
SELECT emq_self_check();
SELECT emq_host_check(emq_self_check_vectors());
"#,
    name = "self_check",
    finalize,
);
