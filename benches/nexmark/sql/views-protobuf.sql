-- The three event streams for Confluent Protobuf: as views.sql, with auction.expires turned from
-- epoch milliseconds into TIMESTAMP(3) (UTC session time zone).
CREATE VIEW person AS
SELECT person.id, person.name, person.emailAddress, person.creditCard, person.city, person.state,
       `dateTime`, person.extra
FROM nexmark WHERE event_type = 0;

CREATE VIEW auction AS
SELECT auction.id, auction.itemName, auction.description, auction.initialBid, auction.reserve,
       `dateTime`, CAST(TO_TIMESTAMP_LTZ(auction.expires, 3) AS TIMESTAMP(3)) AS expires,
       auction.seller, auction.category, auction.extra
FROM nexmark WHERE event_type = 1;

CREATE VIEW bid AS
SELECT bid.auction, bid.bidder, bid.price, bid.channel, bid.url, `dateTime`, bid.extra
FROM nexmark WHERE event_type = 2;
