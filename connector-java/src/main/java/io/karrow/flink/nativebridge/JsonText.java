package io.karrow.flink.nativebridge;

import java.util.Map;

/** Minimal JSON text helpers for the configuration strings handed to native code. */
public final class JsonText {

    private JsonText() {}

    /** Appends {@code value} as a JSON string literal, or {@code null} when it is null. */
    public static StringBuilder appendString(StringBuilder out, String value) {
        if (value == null) {
            return out.append("null");
        }
        out.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"':
                    out.append("\\\"");
                    break;
                case '\\':
                    out.append("\\\\");
                    break;
                case '\n':
                    out.append("\\n");
                    break;
                case '\r':
                    out.append("\\r");
                    break;
                case '\t':
                    out.append("\\t");
                    break;
                case '\b':
                    out.append("\\b");
                    break;
                case '\f':
                    out.append("\\f");
                    break;
                default:
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
            }
        }
        return out.append('"');
    }

    /** Appends a JSON object whose values are all strings (null values are written as null). */
    public static StringBuilder appendStringMap(StringBuilder out, Map<String, String> map) {
        out.append('{');
        boolean first = true;
        for (Map.Entry<String, String> e : map.entrySet()) {
            if (!first) {
                out.append(',');
            }
            first = false;
            appendString(out, e.getKey()).append(':');
            appendString(out, e.getValue());
        }
        return out.append('}');
    }
}
