-- The PostgreSQL adapter of `cargo xtask conformance` (see conformance/PROTOCOL.md).
-- xtask loads every request into the table `req` with one COPY, then reads
-- `SELECT emq_conformance_answer(op, body) FROM req ORDER BY req` in one query.
-- This function only translates a request into calls of the extension's SQL API;
-- a refusal is reported with the gate that opens its message. The runner judges.

CREATE OR REPLACE FUNCTION pg_temp.gate_of(message text, state text) RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
    SELECT jsonb_build_object('gate', split_part(message, ':', 1), 'message', message, 'sqlstate', state)
$$;

CREATE OR REPLACE FUNCTION pg_temp.emq_conformance_answer(op text, body jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
    s bigint;
    t text;
    b bytea;
    state bigint := 0;
    steps jsonb := '[]'::jsonb;
    now_ms text;
    step record;
BEGIN
    CASE op
    WHEN 'decode' THEN
        IF body ? 'text_hex' THEN
            b := decode(body->>'text_hex', 'hex');
            s := emq_decode(b);                    -- the bytea API: any bytes
            t := convert_from(b, 'UTF8');          -- it passed the gates: ASCII
        ELSE
            t := body->>'text';
            s := emq_decode(t);                    -- the text API
        END IF;
        RETURN jsonb_build_object('ok', jsonb_build_object(
            'ns', emq_ns(t), 'snowflake', s::text, 'unix_ms', emq_unix_ms(s)::text,
            'node', emq_node(s), 'seq', emq_seq(s), 'hash32', emq_hash32(s)));
    WHEN 'encode' THEN
        -- A bigint holds snowflakes below 2^63; larger values go through the numeric twin.
        IF (body->>'snowflake')::numeric <= 9223372036854775807 THEN
            t := emq_encode(body->>'ns', (body->>'snowflake')::bigint);
        ELSE
            t := emq_encode_numeric(body->>'ns', (body->>'snowflake')::numeric);
        END IF;
        RETURN jsonb_build_object('ok', jsonb_build_object('text', t));
    WHEN 'min_for' THEN
        RETURN jsonb_build_object('ok', jsonb_build_object(
            'snowflake', emq_min_for_ms((body->>'unix_ms')::bigint)::text));
    WHEN 'mint' THEN
        FOR now_ms IN SELECT jsonb_array_elements_text(body->'now_ms') LOOP
            BEGIN
                SELECT * INTO step FROM emq_mint_step(state, (body->>'node')::int, now_ms::bigint);
                state := step.state;
                steps := steps || jsonb_build_object('snowflake', step.snowflake::text);
            EXCEPTION WHEN invalid_parameter_value THEN
                steps := steps || jsonb_build_object('gate', split_part(SQLERRM, ':', 1));
            END;
        END LOOP;
        RETURN jsonb_build_object('ok', jsonb_build_object('steps', steps));
    WHEN 'slot' THEN
        IF body ? 'key_hex' THEN
            b := decode(body->>'key_hex', 'hex');
            RETURN jsonb_build_object('ok', jsonb_build_object(
                'slot', emq_slot(b), 'hashtag_hex', encode(emq_hashtag(b), 'hex')));
        END IF;
        t := body->>'key';
        RETURN jsonb_build_object('ok', jsonb_build_object(
            'slot', emq_slot(t), 'hashtag_hex', encode(convert_to(emq_hashtag(t), 'UTF8'), 'hex')));
    WHEN 'key' THEN
        IF body ? 'queue_hex' THEN
            t := emq_key(decode(body->>'queue_hex', 'hex'), body->>'kind', body->>'id');
        ELSE
            t := emq_key(body->>'queue', body->>'kind', body->>'id');
        END IF;
        RETURN jsonb_build_object('ok', jsonb_build_object('key', t));
    WHEN 'parse_key' THEN
        SELECT * INTO step FROM emq_parse_key(body->>'key');
        RETURN jsonb_build_object('ok', jsonb_strip_nulls(jsonb_build_object(
            'queue', step.queue, 'family', step.family, 'param', step.param)));
    WHEN 'reserve' THEN
        RETURN jsonb_build_object('ok', jsonb_build_object('key', emq_reserve(body->>'name')));
    WHEN 'prefix_bytes' THEN
        RETURN jsonb_build_object('ok', jsonb_build_object('bytes', emq_prefix_bytes(body->>'queue', body->>'type')));
    WHEN 'queue_prefix' THEN
        RETURN jsonb_build_object('ok', jsonb_build_object('key', emq_queue_prefix(body->>'queue')));
    WHEN 'job_prefix' THEN
        RETURN jsonb_build_object('ok', jsonb_build_object('key', emq_job_prefix(body->>'queue')));
    WHEN 'xadd_id' THEN
        RETURN jsonb_build_object('ok', jsonb_build_object('entry', emq_xadd_id(body->>'id')));
    WHEN 'from_xadd_id' THEN
        RETURN jsonb_build_object('ok', jsonb_build_object('id', emq_from_xadd_id(body->>'entry', body->>'ns')));
    ELSE
        RETURN jsonb_build_object('unsupported', 'unknown op ' || op);
    END CASE;
EXCEPTION
    WHEN invalid_text_representation OR invalid_parameter_value OR invalid_binary_representation THEN
        RETURN jsonb_build_object('error', pg_temp.gate_of(SQLERRM, SQLSTATE));
    WHEN others THEN
        RETURN jsonb_build_object('unsupported', SQLSTATE || ' ' || SQLERRM);
END
$$;
