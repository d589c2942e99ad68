package io.karrow.bench.nexmark;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;

import java.util.SplittableRandom;

/**
 * A deterministic stream of Nexmark events with the distributions of the upstream Nexmark generator
 * ({@code nexmark-flink}, its default configuration): one person to three auctions to 46 bids,
 * numbered by event id; person ids from 1000 and auction ids from 1000 allocated as the events
 * come; sellers and bidders drawn from the 1000 most recent people plus a lead of 10, auctions from
 * the 100 most recent plus 10; a hot seller (3 auctions in 4), a hot auction (1 bid in 2) and a hot
 * bidder (3 bids in 4), each the first (bidders: second) of its block of 100; prices {@code
 * round(10^(6u) * 100)}; five categories from 10; auctions lasting on average until the 100th
 * auction after them; 4 hot channels with their URLs for half the bids, otherwise one of 10,000
 * channels (9 in 10 with a {@code channel_id} in the URL); an {@code extra} padding string sized so
 * that the events average upstream's byte sizes (person 200, auction 500, bid 100).
 *
 * <p>Time progresses as upstream's: event {@code n} happens at {@code baseTime + n * (10^6 /
 * rate) µs}, truncated to milliseconds; events are in order. One difference on purpose: upstream
 * draws from an unseeded random generator, this one from {@code SplittableRandom(seed)} (and the
 * URL tables from seeds derived from it), so a seed gives the same events every time. Upstream also
 * adds the first person id to a bid's bidder twice (bidder ids start at 2000); that is kept.
 *
 * <p>Rows have the column layout of the suite's {@code nexmark} table: {@code event_type} (0
 * person, 1 auction, 2 bid) and the three event rows, of which the one the type names is set. With
 * {@code millis} the timestamps are BIGINT epoch milliseconds (the Protobuf table), else {@link
 * TimestampData}. Not thread-safe.
 */
public final class EventGenerator {

    static final int PERSON_PROPORTION = 1;
    static final int AUCTION_PROPORTION = 3;
    static final int BID_PROPORTION = 46;
    static final int TOTAL_PROPORTION = PERSON_PROPORTION + AUCTION_PROPORTION + BID_PROPORTION;

    private static final long FIRST_PERSON_ID = 1000;
    private static final long FIRST_AUCTION_ID = 1000;
    private static final long FIRST_CATEGORY_ID = 10;
    private static final int NUM_CATEGORIES = 5;
    private static final int NUM_ACTIVE_PEOPLE = 1000;
    private static final int NUM_IN_FLIGHT_AUCTIONS = 100;
    private static final int PERSON_ID_LEAD = 10;
    private static final int AUCTION_ID_LEAD = 10;
    private static final int HOT_SELLERS_RATIO = 4;
    private static final int HOT_AUCTION_RATIO = 2;
    private static final int HOT_BIDDERS_RATIO = 4;
    /** Hot sellers, auctions and bidders are the first (bidders: second) of blocks of this size. */
    private static final int HOT_BLOCK = 100;
    private static final int AVG_PERSON_BYTES = 200;
    private static final int AVG_AUCTION_BYTES = 500;
    private static final int AVG_BID_BYTES = 100;
    private static final int HOT_CHANNELS_RATIO = 2;
    private static final int CHANNELS = 10_000;
    private static final int MIN_STRING_LENGTH = 3;
    private static final int EXTRA_POOL_LENGTH = 1 << 20;

    private static final String[] US_STATES = {"AZ", "CA", "ID", "OR", "WA", "WY"};
    private static final String[] US_CITIES = {
        "Phoenix", "Los Angeles", "San Francisco", "Boise", "Portland", "Bend", "Redmond", "Seattle", "Kent", "Cheyenne"
    };
    private static final String[] FIRST_NAMES = {
        "Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie", "Sarah", "Deiter", "Walter"
    };
    private static final String[] LAST_NAMES = {
        "Shultz", "Abrams", "Spencer", "White", "Bartels", "Walton", "Smith", "Jones", "Noris"
    };
    private static final String[] HOT_CHANNELS = {"Google", "Facebook", "Baidu", "Apple"};

    private final SplittableRandom random;
    private final long baseTime;
    private final double interEventDelayUs;
    private final boolean millis;
    private final String[] hotUrls = new String[HOT_CHANNELS.length];
    private final String[] channelNames = new String[CHANNELS];
    private final String[] channelUrls = new String[CHANNELS];
    private final String extraPool;
    private final StringBuilder text = new StringBuilder(128);
    private long next;

    /**
     * Creates a generator.
     *
     * @param seed the seed of every random draw
     * @param baseTime event time of the first event, epoch milliseconds
     * @param eventsPerSecond event-time rate ({@code 10^6 / rate} µs between events)
     * @param millis timestamps as BIGINT epoch milliseconds instead of {@link TimestampData}
     */
    public EventGenerator(long seed, long baseTime, double eventsPerSecond, boolean millis) {
        if (!(eventsPerSecond > 0)) {
            throw new IllegalArgumentException("the event rate must be positive, got " + eventsPerSecond);
        }
        this.random = new SplittableRandom(seed);
        this.baseTime = baseTime;
        this.interEventDelayUs = 1_000_000.0 / eventsPerSecond;
        this.millis = millis;
        SplittableRandom tables = new SplittableRandom(seed ^ 0x5DEECE66DL);
        for (int i = 0; i < hotUrls.length; i++) {
            hotUrls[i] = baseUrl(tables);
        }
        for (int i = 0; i < CHANNELS; i++) {
            String url = baseUrl(tables);
            if (tables.nextInt(10) > 0) {
                url = url + "&channel_id=" + Math.abs(Integer.reverse(i));
            }
            channelNames[i] = "channel-" + i;
            channelUrls[i] = url;
        }
        StringBuilder pool = new StringBuilder(EXTRA_POOL_LENGTH);
        SplittableRandom padding = new SplittableRandom(seed ^ 0x2545F4914F6CDD1DL);
        for (int i = 0; i < EXTRA_POOL_LENGTH; i++) {
            pool.append((char) ('a' + padding.nextInt(26)));
        }
        this.extraPool = pool.toString();
    }

    /** The number of events generated so far (the next event's number). */
    public long count() {
        return next;
    }

    /** Event time of event number {@code n}, epoch milliseconds. */
    long timestampOf(long n) {
        return baseTime + (long) (n * interEventDelayUs) / 1000L;
    }

    /** The next event as a row of the {@code nexmark} table. */
    public GenericRowData next() {
        long id = next;
        long timestamp = timestampOf(id);
        long rem = id % TOTAL_PROPORTION;
        GenericRowData event = new GenericRowData(4);
        if (rem < PERSON_PROPORTION) {
            event.setField(0, 0);
            event.setField(1, person(id, timestamp));
        } else if (rem < PERSON_PROPORTION + AUCTION_PROPORTION) {
            event.setField(0, 1);
            event.setField(2, auction(id, timestamp));
        } else {
            event.setField(0, 2);
            event.setField(3, bid(id, timestamp));
        }
        next++;
        return event;
    }

    private Object time(long epochMillis) {
        return millis ? (Object) epochMillis : TimestampData.fromEpochMillis(epochMillis);
    }

    private GenericRowData person(long eventId, long timestamp) {
        long id = lastPersonId(eventId) + FIRST_PERSON_ID;
        String name = pick(FIRST_NAMES) + " " + pick(LAST_NAMES);
        String email = string(7, ' ') + "@" + string(5, ' ') + ".com";
        StringBuilder card = new StringBuilder(19);
        for (int i = 0; i < 4; i++) {
            if (i > 0) {
                card.append(' ');
            }
            int group = random.nextInt(10_000);
            card.append((char) ('0' + group / 1000)).append((char) ('0' + group / 100 % 10))
                    .append((char) ('0' + group / 10 % 10)).append((char) ('0' + group % 10));
        }
        String creditCard = card.toString();
        String city = pick(US_CITIES);
        String state = pick(US_STATES);
        int size = 8 + name.length() + email.length() + creditCard.length() + city.length() + state.length();
        String extra = extra(size, AVG_PERSON_BYTES);
        return GenericRowData.of(id, str(name), str(email), str(creditCard), str(city), str(state), time(timestamp),
                str(extra));
    }

    private GenericRowData auction(long eventId, long timestamp) {
        long id = lastAuctionId(eventId) + FIRST_AUCTION_ID;
        long seller;
        if (random.nextInt(HOT_SELLERS_RATIO) > 0) {
            seller = (lastPersonId(eventId) / HOT_BLOCK) * HOT_BLOCK;
        } else {
            seller = randomPersonId(eventId);
        }
        seller += FIRST_PERSON_ID;
        long category = FIRST_CATEGORY_ID + random.nextInt(NUM_CATEGORIES);
        long initialBid = price();
        long expires = timestamp + auctionLengthMs(eventId, timestamp);
        String name = string(20, ' ');
        String description = string(100, ' ');
        long reserve = initialBid + price();
        int size = 8 + name.length() + description.length() + 8 + 8 + 8 + 8 + 8;
        String extra = extra(size, AVG_AUCTION_BYTES);
        return GenericRowData.of(id, str(name), str(description), initialBid, reserve, time(timestamp), time(expires),
                seller, category, str(extra));
    }

    private GenericRowData bid(long eventId, long timestamp) {
        long auction;
        if (random.nextInt(HOT_AUCTION_RATIO) > 0) {
            auction = (lastAuctionId(eventId) / HOT_BLOCK) * HOT_BLOCK;
        } else {
            auction = randomAuctionId(eventId);
        }
        auction += FIRST_AUCTION_ID;
        long bidder;
        if (random.nextInt(HOT_BIDDERS_RATIO) > 0) {
            bidder = (lastPersonId(eventId) / HOT_BLOCK) * HOT_BLOCK + 1;
        } else {
            bidder = randomPersonId(eventId);
        }
        bidder += FIRST_PERSON_ID;
        long price = price();
        String channel;
        String url;
        if (random.nextInt(HOT_CHANNELS_RATIO) > 0) {
            int i = random.nextInt(HOT_CHANNELS.length);
            channel = HOT_CHANNELS[i];
            url = hotUrls[i];
        } else {
            int i = random.nextInt(CHANNELS);
            channel = channelNames[i];
            url = channelUrls[i];
        }
        // Upstream adds the first person id a second time here.
        bidder += FIRST_PERSON_ID;
        String extra = extra(8 + 8 + 8 + 8, AVG_BID_BYTES);
        return GenericRowData.of(auction, bidder, price, str(channel), str(url), time(timestamp), str(extra));
    }

    /** The newest person id (base 0) at event {@code eventId}: the one it creates if it is a person. */
    static long lastPersonId(long eventId) {
        long epoch = eventId / TOTAL_PROPORTION;
        long offset = eventId % TOTAL_PROPORTION;
        if (offset >= PERSON_PROPORTION) {
            offset = PERSON_PROPORTION - 1;
        }
        return epoch * PERSON_PROPORTION + offset;
    }

    /** The newest auction id (base 0) at event {@code eventId}: the one it creates if it is an auction. */
    static long lastAuctionId(long eventId) {
        long epoch = eventId / TOTAL_PROPORTION;
        long offset = eventId % TOTAL_PROPORTION;
        if (offset < PERSON_PROPORTION) {
            epoch--;
            offset = AUCTION_PROPORTION - 1;
        } else if (offset >= PERSON_PROPORTION + AUCTION_PROPORTION) {
            offset = AUCTION_PROPORTION - 1;
        } else {
            offset -= PERSON_PROPORTION;
        }
        return epoch * AUCTION_PROPORTION + offset;
    }

    /** One of the active people, or a few ids ahead of the newest (base 0). */
    private long randomPersonId(long eventId) {
        long people = lastPersonId(eventId) + 1;
        long active = Math.min(people, NUM_ACTIVE_PEOPLE);
        return people - active + below(active + PERSON_ID_LEAD);
    }

    /** One of the auctions likely still open, or a few ids ahead of the newest (base 0). */
    private long randomAuctionId(long eventId) {
        long newest = lastAuctionId(eventId);
        long oldest = Math.max(newest - NUM_IN_FLIGHT_AUCTIONS, 0);
        return oldest + below(newest - oldest + 1 + AUCTION_ID_LEAD);
    }

    /** How long an auction opened at {@code timestamp} runs: on average until 100 auctions later. */
    private long auctionLengthMs(long eventNumber, long timestamp) {
        long eventsForAuctions = ((long) NUM_IN_FLIGHT_AUCTIONS * TOTAL_PROPORTION) / AUCTION_PROPORTION;
        long horizonMs = timestampOf(eventNumber + eventsForAuctions) - timestamp;
        return 1L + below(Math.max(horizonMs * 2, 1L));
    }

    /** A random long in {@code [0, n)}, drawn as upstream draws it. */
    private long below(long n) {
        if (n < Integer.MAX_VALUE) {
            return random.nextInt((int) n);
        }
        return Math.abs(random.nextLong() % n);
    }

    private long price() {
        return Math.round(Math.pow(10.0, random.nextDouble() * 6.0) * 100.0);
    }

    private String pick(String[] values) {
        return values[random.nextInt(values.length)];
    }

    /** 3 to {@code maxLength - 1} letters, one in 13 replaced by {@code special}, then trimmed. */
    private String string(int maxLength, char special) {
        return string(random, text, maxLength, special);
    }

    private static String string(SplittableRandom r, StringBuilder into, int maxLength, char special) {
        int length = MIN_STRING_LENGTH + r.nextInt(maxLength - MIN_STRING_LENGTH);
        into.setLength(0);
        for (int i = 0; i < length; i++) {
            into.append(r.nextInt(13) == 0 ? special : (char) ('a' + r.nextInt(26)));
        }
        return into.toString().trim();
    }

    private static String baseUrl(SplittableRandom r) {
        StringBuilder s = new StringBuilder(64);
        return "https://www.nexmark.com/" + string(r, s, 5, '_') + '/' + string(r, s, 5, '_') + '/'
                + string(r, s, 5, '_') + '/' + "item.htm?query=1";
    }

    /** Padding so that {@code size} plus its length averages {@code average} (±20% uniform). */
    private String extra(int size, int average) {
        if (size > average) {
            return "";
        }
        int wanted = average - size;
        int delta = (int) Math.round(wanted * 0.2);
        int length = wanted - delta + (delta == 0 ? 0 : random.nextInt(2 * delta));
        int offset = random.nextInt(extraPool.length() - length);
        return extraPool.substring(offset, offset + length);
    }

    private static StringData str(String s) {
        return StringData.fromString(s);
    }
}
