package io.echomq.emqid.interop;

import io.echomq.emqid.Keyspace;
import io.lettuce.core.cluster.SlotHash;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * The child JVM of {@link CharsetSlotTest}: started with a platform charset of the test's
 * choosing, it prints that charset, then one line per key: emq-id's slot, Jedis' and Lettuce's,
 * each from the {@code String} overload, the one a platform charset can reach.
 *
 * <p>The keys come as hex of their UTF-8 bytes and are decoded as UTF-8 here: a command line
 * is read in the locale's encoding, not the platform charset under test, so a key passed as
 * text could arrive changed before any library saw it. The output is ASCII for the same reason.
 */
public final class PrintSlots {
    private PrintSlots() {}

    public static void main(String[] args) {
        System.out.println(Charset.defaultCharset().name());
        for (String hex : args) {
            String key = new String(HexFormat.of().parseHex(hex), StandardCharsets.UTF_8);
            System.out.println(Keyspace.slot(key) + " " + JedisClusterCRC16.getSlot(key) + " " + SlotHash.getSlot(key));
        }
    }
}
