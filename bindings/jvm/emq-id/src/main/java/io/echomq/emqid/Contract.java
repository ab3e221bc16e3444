package io.echomq.emqid;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The contract's facts, as the core states them (read from the native library when the package
 * loads; nothing here is typed by hand), and its self-check.
 */
public final class Contract {
    private Contract() {}

    /** The contract's name and version ({@code emq-id/…}). */
    public static final String CONTRACT = Native.TEXTS.get("CONTRACT");
    /** The keyspace's version ({@code emq-keyspace/…}). */
    public static final String KEYSPACE = Native.TEXTS.get("KEYSPACE");
    /** The reserve's version fence key. */
    public static final String VERSION_KEY = Native.TEXTS.get("VERSION_KEY");
    /** What the bus stores at {@link #VERSION_KEY}. */
    public static final String BUS_VERSION = Native.TEXTS.get("BUS_VERSION");
    /** An id's length in bytes. */
    public static final int ID_LEN = Native.ID_LEN;
    /** A namespace's length in bytes. */
    public static final int NS_LEN = Native.NS_LEN;
    /** The base62 digits after the namespace. */
    public static final int PAYLOAD_LEN = number("PAYLOAD_LEN");
    /** The snowflake's epoch, unix ms. */
    public static final long EPOCH_MS = Native.NUMBERS.get("EPOCH_MS");
    /** The greatest node. */
    public static final int MAX_NODE = number("MAX_NODE");
    /** The greatest sequence number within a millisecond. */
    public static final int MAX_SEQ = number("MAX_SEQ");
    /** The greatest time field, ms after {@link #EPOCH_MS}. */
    public static final long MAX_TS = Native.NUMBERS.get("MAX_TS");
    /** The greatest snowflake, 2^63 - 1. */
    public static final long MAX_SNOWFLAKE = Native.NUMBERS.get("MAX_SNOWFLAKE");
    /** Hash slots of a Valkey Cluster. */
    public static final int SLOTS = number("SLOTS");
    /** The longest queue name, bytes. */
    public static final int MAX_QUEUE_LEN = number("MAX_QUEUE_LEN");
    /** The longest name a key's type holds, bytes. */
    public static final int MAX_NAME_LEN = number("MAX_NAME_LEN");
    /** The longest key the keyspace builds, bytes. */
    public static final int MAX_KEY_LEN = number("MAX_KEY_LEN");
    /** The longest stream entry id, bytes. */
    public static final int MAX_ENTRY_ID_LEN = number("MAX_ENTRY_ID_LEN");
    /** The gates, in the order the contract checks them. */
    public static final List<Gate> GATES = gates();
    /** The contract's self-check vectors, one check per line. */
    public static final String SELF_CHECK_VECTORS = Native.SELF_CHECK_VECTORS;
    /** This library's version. */
    public static final String VERSION = Native.VERSION;

    /**
     * Runs the core's self-check vectors through this package's public API; the package already
     * did when it loaded.
     *
     * @throws SelfCheckException naming the first line answered differently
     */
    public static void selfCheck() {
        SelfCheck.run(SELF_CHECK_VECTORS);
    }

    /**
     * Runs self-check vectors of your own (the core's format, one check per line) through this
     * package's public API.
     *
     * @param vectors the lines
     * @throws SelfCheckException naming the first line answered differently, or for text with no line
     */
    public static void selfCheck(String vectors) {
        SelfCheck.run(vectors);
    }

    static int number(String name) {
        return Math.toIntExact(Native.NUMBERS.get(name));
    }

    private static List<Gate> gates() {
        List<Gate> gates = new ArrayList<>();
        for (String code : Native.GATES) {
            gates.add(Gate.of(code));
        }
        return Collections.unmodifiableList(gates);
    }
}
