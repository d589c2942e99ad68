-- q10 log to file system, here to Kafka: every bid with its day and minute as partition strings.
CREATE TABLE nexmark_q10 (
    auction BIGINT, bidder BIGINT, price BIGINT, `dateTime` TIMESTAMP(3), extra VARCHAR,
    dt STRING, hm STRING
) WITH (${WITH});

INSERT INTO nexmark_q10
SELECT auction, bidder, price, `dateTime`, extra,
       DATE_FORMAT(`dateTime`, 'yyyy-MM-dd'), DATE_FORMAT(`dateTime`, 'HH:mm')
FROM bid;
