package io.echomq.emqid;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The process-wide minter (one mint state per process, on a node this process holds on this
 * host, SPEC.md §5.1) and the contract's pure step. The node is {@link #setNode(int)}'s, else
 * {@code EMQ_NODE}'s, else drawn (with a warning on the {@code io.echomq.emqid} logger: another
 * host can draw it too). The claim is the core's, in {@code EMQ_NODE_DIR}: a JVM and a native
 * process of this host on one node refuse each other.
 */
public final class Mint {
    private Mint() {}

    /** Whether the warning for a drawn node was given. */
    private static final AtomicBoolean WARNED = new AtomicBoolean();

    /**
     * An id from the process-wide minter.
     *
     * @param ns three letters {@code A-Z}
     * @return the id's text
     * @throws EmqIdException {@code range} for a namespace that is not three letters; {@code node} when another live process of this
     *     host holds the node; {@code range} for a bad {@code EMQ_NODE}
     */
    public static String mint(String ns) {
        byte[] text = new byte[Native.ID_LEN];
        Native.mint(Text.utf8(ns, "ns"), text);
        if (!WARNED.get()) {
            processNode();
        }
        return Text.ofAscii(text, 0, text.length);
    }

    /**
     * The process's node and where it came from, taking it on first use.
     *
     * @return the node
     * @throws EmqIdException {@code node} or {@code range}, as {@link #mint(String)}
     */
    public static ProcessNode processNode() {
        return reported(Native.processNode());
    }

    /**
     * Makes {@code node} this process's node in place of {@code EMQ_NODE}, for the process's
     * lifetime.
     *
     * @param node 0 to {@link Contract#MAX_NODE}
     * @return the node
     * @throws EmqIdException {@code range}; {@code node} when another live process of this host
     *     holds it, or this process already mints with another
     */
    public static ProcessNode setNode(int node) {
        return reported(Native.setNode(node));
    }

    /**
     * The contract's pure mint step: the state after minting at {@code nowMs}, and the snowflake.
     *
     * @param state the state before (0 for a fresh one)
     * @param node 0 to {@link Contract#MAX_NODE}
     * @param nowMs unix ms
     * @return the state after and the snowflake
     * @throws EmqIdException {@code range}
     */
    public static MintStep step(long state, int node, long nowMs) {
        long[] out = new long[2];
        Native.mintStep(state, node, nowMs, out);
        return new MintStep(out[0], out[1]);
    }

    private static ProcessNode reported(long packed) {
        NodeSource source = NodeSource.values()[(int) (packed >>> 32)];
        int node = (int) packed;
        if (source == NodeSource.FALLBACK && WARNED.compareAndSet(false, true)) {
            System.getLogger("io.echomq.emqid").log(System.Logger.Level.WARNING,
                    "EMQ_NODE is not set: this process mints with node " + node + ", drawn among the nodes no live"
                    + " process of this host holds; another host can draw it too, and then ids collide. Give each"
                    + " process its own node (EMQ_NODE, Mint.setNode) or use a lease");
        } else if (source != NodeSource.FALLBACK) {
            WARNED.set(true);
        }
        return new ProcessNode(node, source);
    }
}
