package io.echomq.emqid;

/** What a holder does with an outcome (the core's {@code Action}, in its order). */
public enum Action {
    /** Start minting on the lease just acknowledged. */
    PUBLISH,
    /** Record the renewal. */
    RENEWED,
    /** Keep the lease pending: acquired but not yet acknowledged. */
    PEND,
    /** Wait and write again. */
    WAIT,
    /** Stop minting on the lease: it is lost. */
    LOSE,
    /** Follow an {@code ASK} once, with {@code ASKING}. */
    FOLLOW,
    /** Refresh the topology and send the write to the slot's new node. */
    REROUTE,
    /** Send the write again after the retry interval. */
    RETRY,
    /** Open a new connection and write again. */
    RECONNECT,
    /** Stop: the first acquire is refused, or the release is left to the TTL. */
    GIVE_UP,
    /** The release ran. */
    RELEASED;

    /**
     * The action's name in every runtime ({@code "give_up"}).
     *
     * @return the name
     */
    public String code() {
        return Names.code(this);
    }

    /**
     * The action of a name.
     *
     * @param code a name, as {@link #code()} gives it
     * @return the constant
     * @throws IllegalArgumentException for a name that is none
     */
    public static Action of(String code) {
        return Names.of(Action.class, code);
    }
}
