-- q19 top-10 bids by price per auction (Top-N; updating). Bids of one auction with equal prices
-- are ranked in arrival order, which differs between runs: compared up to the order of tied rows.
-- compare: top-n auction rank_number price 10
CREATE TABLE nexmark_q19 (
    auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
    `dateTime` TIMESTAMP(3), extra VARCHAR, rank_number BIGINT,
    PRIMARY KEY (auction, rank_number) NOT ENFORCED
) WITH (${WITH});

INSERT INTO nexmark_q19
SELECT * FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC) AS rank_number FROM bid
)
WHERE rank_number <= 10;
