-- q2 selection: the bids of every 123rd auction.
CREATE TABLE nexmark_q2 (
    auction BIGINT, price BIGINT
) WITH (${WITH});

INSERT INTO nexmark_q2
SELECT auction, price FROM bid WHERE MOD(auction, 123) = 0;
