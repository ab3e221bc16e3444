package io.echomq.emqid;

/** What the batch forms share: packing text, and naming the item a refusal is about. */
final class Batch {
    private Batch() {}

    /**
     * The refusal of item {@code index}, which {@code single} throws when asked about that item
     * alone, with the index in its message (the gate and the rest are the item's).
     */
    static EmqIdException at(int index, Runnable single) {
        try {
            single.run();
        } catch (EmqIdException refused) {
            return new EmqIdException(refused, index);
        }
        throw new IllegalStateException("emq-id: the batch refused item " + index + " but the item alone passed");
    }

    /** Copies {@code text} as ASCII into {@code out} at {@code offset}; false when it is not {@code len} ASCII characters. */
    static boolean packAscii(CharSequence text, byte[] out, int offset, int len) {
        if (text == null || text.length() != len) {
            return false;
        }
        int seen = 0;
        for (int i = 0; i < len; i++) {
            char c = text.charAt(i);
            seen |= c;
            out[offset + i] = (byte) c;
        }
        return seen < 0x80;
    }
}
