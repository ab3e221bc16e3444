package io.echomq.emqid;

/**
 * The contract's pure mint step's answer ({@link Mint#step}).
 *
 * @param state the state after the step, to hand to the next
 * @param snowflake the snowflake minted
 */
public record MintStep(long state, long snowflake) {}
