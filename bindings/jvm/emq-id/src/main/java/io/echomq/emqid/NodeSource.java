package io.echomq.emqid;

/** Where the process-wide minter's node came from. */
public enum NodeSource {
    /** The environment variable {@code EMQ_NODE}. */
    ENV,
    /** {@link Mint#setNode(int)}. */
    SET,
    /** Drawn among the nodes no live process of this host holds: ids may collide across hosts. */
    FALLBACK
}
