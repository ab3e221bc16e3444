package io.echomq.emqid;

import java.util.List;
import java.util.OptionalLong;

/**
 * A refusal of the contract: the {@link Gate} and the core's message. {@code getMessage()} is
 * {@code "<gate>: <what was wrong>"}, the same text in every runtime.
 */
public final class EmqIdException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /** The gate. */
    private final Gate gate;
    /** The core's message, without the gate. */
    private final String detail;
    /** For {@code parseWait}'s refusal: the replicas that acknowledged, or -1. */
    private final long acknowledged;
    /** For {@code parseWait}'s refusal: the replicas wanted, or -1. */
    private final long replicas;

    /**
     * The refusal the native library describes as fields (the crate's {@code error.rs}): the
     * one constructor, for a refusal thrown there and for one handed back as a value.
     */
    EmqIdException(byte[] fields) {
        this(Fields.read(fields));
    }

    /**
     * A refusal of your own, in the contract's words: for code that reads a reply or a value the
     * core cannot see (a lease holder's transport, a validator) and refuses it by a gate.
     *
     * @param gate the gate
     * @param detail what was wrong, without the gate's name
     */
    public EmqIdException(Gate gate, String detail) {
        super(gate.code() + ": " + detail);
        this.gate = gate;
        this.detail = detail;
        this.acknowledged = -1;
        this.replicas = -1;
    }

    /** An item's refusal in a batch: its message names the item. */
    EmqIdException(EmqIdException item, int index) {
        super(item.gate.code() + ": item " + index + ": " + item.detail, item);
        this.gate = item.gate;
        this.detail = "item " + index + ": " + item.detail;
        this.acknowledged = item.acknowledged;
        this.replicas = item.replicas;
    }

    private EmqIdException(List<String> fields) {
        super(fields.get(0) + ": " + fields.get(1));
        this.gate = Gate.of(fields.get(0));
        this.detail = fields.get(1);
        this.acknowledged = fields.get(2) == null ? -1 : Long.parseLong(fields.get(2));
        this.replicas = fields.get(3) == null ? -1 : Long.parseLong(fields.get(3));
    }

    /**
     * Why the core refused.
     *
     * @return the gate
     */
    public Gate gate() {
        return gate;
    }

    /**
     * The core's message alone, without the gate's name.
     *
     * @return the message
     */
    public String detail() {
        return detail;
    }

    /**
     * For {@link Lease#parseWait}'s {@code node} refusal: the replicas that acknowledged the write.
     *
     * @return the count, or empty for every other refusal
     */
    public OptionalLong acknowledged() {
        return acknowledged < 0 ? OptionalLong.empty() : OptionalLong.of(acknowledged);
    }

    /**
     * For {@link Lease#parseWait}'s {@code node} refusal: the replicas wanted.
     *
     * @return the count, or empty for every other refusal
     */
    public OptionalLong replicas() {
        return replicas < 0 ? OptionalLong.empty() : OptionalLong.of(replicas);
    }

    /** The refusal the one error helper makes of the core's gate at {@code index}, or null past the last. */
    static EmqIdException probe(int index) {
        byte[] fields = Native.gateRefusal(index);
        return fields == null ? null : new EmqIdException(fields);
    }
}
