package io.karrow.flink.formats.registry;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.DelegatingConfiguration;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.factories.DynamicTableFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The default registry subject of a format used as a Kafka sink's key or value format, resolved the
 * way Flink's Kafka connector auto-completes it for {@code avro-confluent} (which it does only for
 * that identifier, so a format with another identifier has to do it itself). Shared by every
 * registry format ({@code avro-confluent-native}, {@code json-confluent-native}); the identifier is a
 * parameter.
 *
 * <p>The rule, applied to the options of the catalog table:
 *
 * <ol>
 *   <li>The table must name exactly one literal topic: {@code topic} is set to one name (no {@code
 *       ;}-separated list) and {@code topic-pattern} is not set. Otherwise there is no default.
 *   <li>The candidate roles are those whose format option names the format: <b>key</b> if {@code
 *       key.format} does (options prefix {@code key.<identifier>.}, subject {@code <topic>-key});
 *       <b>value</b> if {@code value.format} does (prefix {@code value.<identifier>.}) or {@code
 *       format} does (prefix {@code <identifier>.}), subject {@code <topic>-value}.
 *   <li>One candidate: that role. Several (the format is both key and value format): the role whose
 *       prefix the given format options were projected with, i.e. first the prefix for which Flink's
 *       {@link DelegatingConfiguration} over the table options equals the given options, then the
 *       prefix whose options (prefix removed) equal {@code formatOptions.toMap()}. If that still does
 *       not single out one role, there is no default.
 * </ol>
 *
 * <p>Sources never need a subject; this is only consulted for serialization.
 */
public final class SubjectAutoCompletion {

    /** Table option naming one or more topics ({@code ;}-separated). */
    static final String TOPIC = "topic";

    /** Table option naming a topic pattern. */
    static final String TOPIC_PATTERN = "topic-pattern";

    private SubjectAutoCompletion() {}

    /**
     * The subject a registry format registers its writer schema under: the {@code subject} option
     * when set, else the default of the rule above.
     *
     * @param identifier the format identifier
     * @param context the sink table's factory context (its catalog table options are read)
     * @param formatOptions the format's options (prefix removed)
     * @throws ValidationException "Option &lt;identifier&gt;.subject is required for serialization"
     *     when neither gives one, as Flink's {@code avro-confluent} fails
     */
    public static String requireSubject(
            String identifier, DynamicTableFactory.Context context, ReadableConfig formatOptions) {
        return formatOptions.getOptional(RegistryFormatOptions.SUBJECT)
                .or(() -> defaultSubject(identifier, context.getCatalogTable().getOptions(), formatOptions))
                .orElseThrow(() -> new ValidationException(String.format(
                        "Option %s.%s is required for serialization (it is auto-completed as '<topic>-value' or "
                                + "'<topic>-key' only for a Kafka table with a single literal 'topic' whose key or "
                                + "value format is unambiguously '%s')",
                        identifier, RegistryFormatOptions.SUBJECT.key(), identifier)));
    }

    /**
     * The default subject for format {@code identifier} given the catalog table's options and the
     * format's (prefixed) options, or empty when the rule above gives none.
     */
    public static Optional<String> defaultSubject(
            String identifier, Map<String, String> tableOptions, ReadableConfig formatOptions) {
        Optional<String> topic = singleTopic(tableOptions);
        if (topic.isEmpty()) {
            return Optional.empty();
        }
        List<Role> candidates = new ArrayList<>();
        if (identifier.equals(tableOptions.get("key.format"))) {
            candidates.add(new Role("key." + identifier + ".", "-key"));
        }
        if (identifier.equals(tableOptions.get("value.format"))) {
            candidates.add(new Role("value." + identifier + ".", "-value"));
        }
        if (identifier.equals(tableOptions.get("format"))) {
            candidates.add(new Role(identifier + ".", "-value"));
        }
        Optional<Role> role = single(candidates);
        if (role.isEmpty()) {
            Configuration all = Configuration.fromMap(tableOptions);
            role = single(candidates.stream()
                    .filter(r -> formatOptions.equals(new DelegatingConfiguration(all, r.prefix)))
                    .toList());
        }
        if (role.isEmpty()) {
            Map<String, String> given = formatOptions.toMap();
            role = single(candidates.stream().filter(r -> stripped(tableOptions, r.prefix).equals(given)).toList());
        }
        return role.map(r -> topic.get() + r.suffix);
    }

    private static Optional<String> singleTopic(Map<String, String> tableOptions) {
        String topic = tableOptions.get(TOPIC);
        if (topic == null || tableOptions.containsKey(TOPIC_PATTERN)) {
            return Optional.empty();
        }
        String trimmed = topic.trim();
        if (trimmed.isEmpty() || trimmed.contains(";")) {
            return Optional.empty();
        }
        return Optional.of(trimmed);
    }

    private static Optional<Role> single(List<Role> roles) {
        return roles.size() == 1 ? Optional.of(roles.get(0)) : Optional.empty();
    }

    private static Map<String, String> stripped(Map<String, String> options, String prefix) {
        Map<String, String> out = new HashMap<>();
        options.forEach((k, v) -> {
            if (k.startsWith(prefix)) {
                out.put(k.substring(prefix.length()), v);
            }
        });
        return out;
    }

    /** A key or value role: the options prefix of the format, and the subject suffix. */
    private static final class Role {
        final String prefix;
        final String suffix;

        Role(String prefix, String suffix) {
            this.prefix = prefix;
            this.suffix = suffix;
        }
    }
}
