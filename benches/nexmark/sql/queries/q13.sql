-- q13 bounded side input join: each bid enriched from a 10,000-row side input, looked up in
-- processing time. Flink 2.2's filesystem source is no lookup source (upstream used the removed
-- legacy CSV source), so the side input is the suite's own lookup source over the same file.
CREATE TABLE side_input (
    key BIGINT, `value` VARCHAR
) WITH ('connector' = 'nexmark-side-input', 'path' = '${SIDE_INPUT}');

CREATE TABLE nexmark_q13 (
    auction BIGINT, bidder BIGINT, price BIGINT, `dateTime` TIMESTAMP(3), `value` VARCHAR
) WITH (${WITH});

INSERT INTO nexmark_q13
SELECT B.auction, B.bidder, B.price, B.`dateTime`, S.`value`
FROM (SELECT *, PROCTIME() AS p_time FROM bid) B
JOIN side_input FOR SYSTEM_TIME AS OF B.p_time AS S
ON MOD(B.auction, 10000) = S.key;
