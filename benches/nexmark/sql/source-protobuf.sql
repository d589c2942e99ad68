-- The Nexmark event table for Confluent Protobuf: as source.sql, but the timestamps inside the
-- events are BIGINT epoch milliseconds (a Protobuf message has no TIMESTAMP field that Flink's
-- protobuf format or protobuf-native reads), turned into TIMESTAMP(3) here and in
-- views-protobuf.sql. The session time zone is UTC, so the values equal those of source.sql.
CREATE TABLE nexmark (
    event_type INT,
    person ROW<
        id BIGINT,
        name VARCHAR,
        emailAddress VARCHAR,
        creditCard VARCHAR,
        city VARCHAR,
        state VARCHAR,
        `dateTime` BIGINT,
        extra VARCHAR>,
    auction ROW<
        id BIGINT,
        itemName VARCHAR,
        description VARCHAR,
        initialBid BIGINT,
        reserve BIGINT,
        `dateTime` BIGINT,
        expires BIGINT,
        seller BIGINT,
        category BIGINT,
        extra VARCHAR>,
    bid ROW<
        auction BIGINT,
        bidder BIGINT,
        price BIGINT,
        channel VARCHAR,
        url VARCHAR,
        `dateTime` BIGINT,
        extra VARCHAR>,
    `dateTime` AS CAST(TO_TIMESTAMP_LTZ(CASE
        WHEN event_type = 0 THEN person.`dateTime`
        WHEN event_type = 1 THEN auction.`dateTime`
        ELSE bid.`dateTime`
    END, 3) AS TIMESTAMP(3)),
    WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND
) WITH (${WITH});
