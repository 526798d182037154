// Prints MirrorMaker 2's own translation of a group's offsets, one
// "topic partition offset" line per partition, sorted: the reference the
// translate test compares offsetctl with. Run on the MM2 classpath:
//   java -cp "$(scripts/mm2.sh classpath)" Translate.java BOOTSTRAP ALIAS GROUP
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.mirror.RemoteClusterUtils;

public class Translate {
    public static void main(String[] args) throws Exception {
        Map<String, Object> props = new HashMap<>();
        props.put("bootstrap.servers", args[0]);
        Map<TopicPartition, OffsetAndMetadata> got =
            RemoteClusterUtils.translateOffsets(props, args[1], args[2], Duration.ofSeconds(30));
        TreeSet<String> lines = new TreeSet<>();
        for (Map.Entry<TopicPartition, OffsetAndMetadata> e : got.entrySet()) {
            lines.add(e.getKey().topic() + " " + e.getKey().partition() + " " + e.getValue().offset());
        }
        for (String l : lines) {
            System.out.println(l);
        }
    }
}
