-- Refusals through the SQL API: each statement's SQLSTATE and gate (the
-- message's first word), as SPEC.md §9's SQL column says; NULL in, NULL out;
-- the empty text and bytea; and a backend that lives on after every refusal.
CREATE FUNCTION refusal(statement text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE statement;
  RETURN 'accepted';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ' ' || split_part(SQLERRM, ':', 1);
END $$;

SELECT statement, refusal(statement) FROM (VALUES
  ($$SELECT emq_decode('USR0KHTOWnGLu')$$),
  ($$SELECT emq_decode('usr0KHTOWnGLuC')$$),
  ($$SELECT emq_decode('USR0KHTOWnGL!C')$$),
  ($$SELECT emq_decode('USRzzzzzzzzzzz')$$),
  ($$SELECT emq_decode('\xff00'::bytea)$$),
  ($$SELECT 'USR0KHTOWnGL!C'::branded_id$$),
  ($$SELECT emq_decode('USR0KHTOWnGLuC', 'JOB')$$),
  ($$SELECT emq_encode('USR', -1)$$),
  ($$SELECT emq_encode('usr', 0)$$),
  ($$SELECT emq_encode_numeric('USR', 9223372036854775808)$$),
  ($$SELECT emq_encode_numeric('USR', 0.5)$$),
  ($$SELECT emq_encode_numeric('USR', 9223372036854775806.9)$$),
  ($$SELECT emq_hash32(-5)$$),
  ($$SELECT emq_min_for('infinity'::timestamptz)$$),
  ($$SELECT emq_queue_key('a{b}', 'pending')$$),
  ($$SELECT emq_queue_key('orders', 'done')$$),
  ($$SELECT emq_job_key('orders', 'USR0KHTOWnGLuC')$$),
  ($$SELECT emq_key('orders', 'g:a:b:pending')$$),
  ($$SELECT emq_parse_key('{emq}:version')$$),
  ($$SELECT emq_xadd_id('ORD000xY9Wvvcd')$$),
  ($$SELECT emq_xadd_id('EVT000xY9Wvv')$$),
  ($$SELECT emq_from_xadd_id('1704117200000-x')$$),
  ($$SELECT emq_from_xadd_id('5-0')$$),
  ($$SELECT emq_job_key('orders', 'JOBzzzzzzzzzzz')$$),
  ($$SELECT emq_mint_step(0, 1024, 0)$$),
  ($$SELECT branded_id('usr', 1)$$),
  ($$SELECT emq_mint('job')$$),
  ($$SELECT emq_mint_step(0, -1, 0)$$),
  ($$SELECT emq_compare('USR0KHTOWnGLuC', 'usr')$$),
  ($$SELECT emq_compare('USRzzzzzzzzzzz', 'USR0KHTOWnGLuC')$$),
  -- Empty inputs: the empty bytes are an id of length 0, and a queue of none.
  ($$SELECT emq_decode(''::bytea)$$),
  ($$SELECT emq_decode('')$$),
  ($$SELECT ''::branded_id$$),
  ($$SELECT emq_key(''::bytea, 'pending')$$)
) AS cases(statement);

-- NULL in, NULL out.
SELECT emq_decode(NULL::text) IS NULL AND emq_slot(NULL::text) IS NULL AND emq_encode(NULL, 1) IS NULL
   AND emq_key(NULL, 'pending') IS NULL AND emq_is_valid(NULL::text) IS NULL
   AND emq_compare(NULL, 'USR0KHTOWnGLuC') IS NULL AS null_in_null_out;

-- emq_is_valid and emq_compare answer as the core.
SELECT emq_is_valid('USR0KHTOWnGLuC') AS valid, emq_is_valid('usr0KHTOWnGLuC') AS lower_ns,
       emq_is_valid('USRzzzzzzzzzzz') AS past_max, emq_is_valid('\x555352304b48544f576e474c7543'::bytea) AS bytes,
       emq_is_valid('\x00ff'::bytea) AS short_bytes;
SELECT emq_compare('USR0KHTOWnGLuC', 'USR0NgWEfAEJfs') AS less, emq_compare('USR0NgWEfAEJfs', 'USR0KHTOWnGLuC') AS greater,
       emq_compare('USR0KHTOWnGLuC', 'USR0KHTOWnGLuC') AS same, emq_compare('JOB0KHTOWnGLuC', 'USR0KHTOWnGLuC') AS by_ns;

-- The hash opclass answers hash32 (the seed is ignored); minted ids carry the server's node (1).
SELECT branded_id_hash('USR0KHTOWnGLuC'::branded_id) AS hash,
       branded_id_hash_extended('USR0KHTOWnGLuC'::branded_id, 0) AS extended_0,
       branded_id_hash_extended('USR0KHTOWnGLuC'::branded_id, 42) AS extended_42,
       emq_hash32('USR0KHTOWnGLuC'::branded_id) AS hash32,
       emq_node(emq_decode(emq_mint('JOB'))) AS minted_node, emq_ns(emq_mint('EVT')) AS minted_ns;

-- The empty bytes: slot 0, an empty tag, not an id.
SELECT emq_slot(''::bytea) AS slot_bytes, emq_slot('') AS slot_text, emq_hashtag(''::bytea) AS tag_bytes,
       emq_hashtag('') AS tag_text, emq_is_valid(''::bytea) AS valid_bytes, emq_is_valid('') AS valid_text;

-- The backend lives on after every refusal.
SELECT emq_self_check() AS self_check, emq_slot('\x00ff'::bytea) >= 0 AS slot_answers;
