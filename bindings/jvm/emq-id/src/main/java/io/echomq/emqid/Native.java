package io.echomq.emqid;

/**
 * The native methods of {@code libemqid_jni} (the Rust crate {@code bindings/jvm}), and the
 * contract's tables it hands over once. Package-private: the public classes convert Java
 * values to what crosses here (UTF-8 {@code byte[]}, {@code long}s) and back.
 *
 * <p>Loading this class loads the library, reads the core's tables, checks the enums against
 * the core's names and runs the contract's self-check through the public API; a library that
 * answers differently makes every class of the package fail to load. Nothing that this
 * initialiser calls initialises a class that calls back into it first, so two threads using
 * the package for the first time cannot deadlock on class initialisation.
 */
final class Native {
    private Native() {}

    /** The id's length in bytes, from the core. */
    static final int ID_LEN;
    /** The namespace's length in bytes, from the core. */
    static final int NS_LEN;
    /** The core's numbers by name. */
    static final java.util.Map<String, Long> NUMBERS;
    /** The core's names by name. */
    static final java.util.Map<String, String> TEXTS;
    /** The gates' names, in the contract's order. */
    static final java.util.List<String> GATES;
    /** The lease scripts, in the core's order. */
    static final java.util.List<LeaseScript> SCRIPTS;
    /** The contract's self-check vectors. */
    static final String SELF_CHECK_VECTORS;
    /** The library's version (the Rust crate's, which is the artifact's). */
    static final String VERSION;

    static {
        NativeLibrary.load();
        NUMBERS = Fields.numbers(table(0));
        TEXTS = Fields.texts(table(1));
        ID_LEN = Math.toIntExact(NUMBERS.get("ID_LEN"));
        NS_LEN = Math.toIntExact(NUMBERS.get("NS_LEN"));
        GATES = Fields.read(table(2));
        Names.check(Gate.class, GATES);
        Names.check(Outcome.class, Fields.read(table(3)));
        Names.check(Action.class, Fields.read(table(4)));
        Names.check(Phase.class, Fields.read(table(5)));
        Names.check(Next.class, Fields.read(table(6)));
        SCRIPTS = LeaseScript.fromTable(Fields.read(table(7)));
        java.util.List<String> build = Fields.read(table(8));
        SELF_CHECK_VECTORS = build.get(0);
        VERSION = build.get(1);
        SelfCheck.run(SELF_CHECK_VECTORS);
    }

    // The contract's tables and the error helper's probe.
    static native byte[] table(int which);
    static native byte[] gateRefusal(int index);

    // The id.
    static native long decodePacked(long low, long high);
    static native long decode(byte[] text);
    static native boolean isValid(byte[] text);
    static native int compare(byte[] a, byte[] b);
    static native void encode(byte[] ns, long snowflake, byte[] out);
    static native void encodePacked(int ns, long snowflake, byte[] out);
    static native long hash32(long snowflake);
    static native long unixMs(long snowflake);
    static native int node(long snowflake);
    static native int seq(long snowflake);
    static native long minFor(long unixMs);
    static native int decodeMany(byte[] packed, long[] out);
    static native int encodeMany(byte[] ns, long[] snowflakes, byte[] out);

    // Placement and the keyspace.
    static native int slot(byte[] key);
    static native int slotPacked(long w0, long w1, long w2, long w3, long w4, int len);
    static native long hashtagSpan(byte[] key);
    static native int slotMany(byte[] packed, int[] ends);
    static native byte[] key(byte[] queue, byte[] type, byte[] id);
    static native byte[] jobKey(byte[] queue, byte[] id);
    static native byte[] parseKey(byte[] key);
    static native byte[] reserve(byte[] name);
    static native byte[] queuePrefix(byte[] queue);
    static native byte[] jobPrefix(byte[] queue);
    static native int prefixBytes(byte[] queue, byte[] type);
    static native byte[] xaddId(byte[] id);
    static native byte[] fromXaddId(byte[] entry, byte[] ns);

    // Minting.
    static native long minterNew(int node);
    static native void minterFree(long minter);
    static native long minterNext(long minter);
    static native long minterNextAt(long minter, long nowMs);
    static native void minterNextMany(long minter, long[] out);
    static native void mintStep(long state, int node, long nowMs, long[] out);
    static native void mint(byte[] ns, byte[] out);
    static native long processNode();
    static native long setNode(int node);

    // Leases.
    static native void parseAcquire(long node, long previous, long[] out);
    static native byte[] parseAcquireError(byte[] message);
    static native void parseRenewal(long reply);
    static native void parseWait(long acknowledged, long replicas);
    static native void termsCheck(long ttlMs, long marginMs);
    static native long termsForTtl(long ttlMs);
    static native void termsTiming(long ttlMs, long marginMs, long[] out);
    static native long leasedStart(int node, long previousMark, long nowMs, long sentMonoMs, long ttlMs, long marginMs);
    static native void leasedFree(long minter);
    static native long leasedNext(long minter);
    static native long leasedNextAt(long minter, long nowMs, long monoMs);
    static native long leasedNextMark(long minter, long nowMs);
    static native void leasedRenewed(long minter, long sentMonoMs, long mark);
    static native void leasedStop(long minter);
    static native void leasedState(long minter, long[] out);
    static native long monotonicMs();

    // The lease keeper.
    static native int readLeaseError(byte[] text, boolean asked);
    static native byte[] redirect(byte[] text);
    static native int outcomeOfWrite(boolean held, boolean acknowledged);
    static native byte[] keeperRefusal(int outcome);
    static native long keeperNew(long ttlMs, long marginMs, long sinceMonoMs);
    static native void keeperFree(long keeper);
    static native int keeperNext(long keeper, long nowMonoMs);
    static native void keeperSettle(long keeper, int outcome, long sentMonoMs, long nowMonoMs, long[] out);
    static native void keeperRelease(long keeper);
    static native int keeperPhase(long keeper);
    static native boolean keeperAsked(long keeper);

    // The benchmark's floor: empty natives of the hot signatures, only in a library built
    // with the crate's `bench` feature (calling one elsewhere throws UnsatisfiedLinkError).
    static native long floorLongLong(long a, long b);
    static native int floorBytes(byte[] bytes);
    static native void floorEncode(byte[] ns, long snowflake, byte[] out);
    static native long floorLong(long a);
    static native int floorBatch(byte[] packed, long[] out);
    static native int floorSlotPacked(long w0, long w1, long w2, long w3, long w4, int len);
    static native void floorEncodePacked(int ns, long snowflake, byte[] out);
}
