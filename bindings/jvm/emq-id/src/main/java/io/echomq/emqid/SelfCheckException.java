package io.echomq.emqid;

/**
 * This build answers a line of the contract's self-check vectors differently from the core: the
 * package refuses to load (its classes fail with {@link ExceptionInInitializerError} caused by
 * this), and {@link Contract#selfCheck(String)} throws it for vectors of your own.
 */
public final class SelfCheckException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The line answered differently. */
    private final String line;

    SelfCheckException(String line, String answer, Throwable cause) {
        super("emq-id self-check: " + (line.isEmpty() ? "(no line)" : "`" + line + "`") + " answered " + answer, cause);
        this.line = line;
    }

    /**
     * The line of the vectors that this build answered differently.
     *
     * @return the line ({@code ""} when the vectors had no line)
     */
    public String line() {
        return line;
    }
}
