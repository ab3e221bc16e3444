-- ORDER BY on branded_id is the byte order of the text under COLLATE "C", and
-- emq_compare agrees with the type's comparison and with the text's order;
-- a branded_id is 12 bytes on disk.
SELECT setseed(0.27);

CREATE TABLE ordered AS
  SELECT branded_id(chr(65 + (g % 26)) || chr(65 + (g * 7 % 26)) || 'Q', (random() * 9.2e18)::bigint) AS id
  FROM generate_series(1, 20000) g
  UNION ALL SELECT emq_mint_id('JOB') FROM generate_series(1, 5000)
  UNION ALL SELECT branded_id('AAA', 0) UNION ALL SELECT branded_id('ZZZ', 9223372036854775807);

SELECT count(*) AS ids,
       (SELECT array_agg(id::text ORDER BY id) FROM ordered)
         = (SELECT array_agg(id::text ORDER BY id::text COLLATE "C") FROM ordered) AS type_order_is_text_order
FROM ordered;

SELECT count(*) FILTER (WHERE emq_compare(a.id::text, b.id::text) IS DISTINCT FROM branded_id_cmp(a.id, b.id)
                           OR emq_compare(a.id::text, b.id::text) IS DISTINCT FROM
                              CASE WHEN a.id::text COLLATE "C" < b.id::text THEN -1
                                   WHEN a.id::text = b.id::text THEN 0 ELSE 1 END) AS disagreements,
       count(*) AS pairs
FROM (SELECT id FROM ordered ORDER BY random() LIMIT 300) a, (SELECT id FROM ordered ORDER BY random() LIMIT 300) b;

SELECT pg_column_size('USR0KHTOWnGLuC'::branded_id) AS bytes;
