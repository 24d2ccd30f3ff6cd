package org.mcrawl.esnode.smartcn;

import java.util.Map;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.StopFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.Tokenizer;
import org.apache.lucene.analysis.cn.smart.HMMChineseTokenizer;
import org.apache.lucene.analysis.cn.smart.SmartChineseAnalyzer;
import org.elasticsearch.index.analysis.AbstractIndexAnalyzerProvider;
import org.elasticsearch.index.analysis.AbstractTokenFilterFactory;
import org.elasticsearch.index.analysis.AbstractTokenizerFactory;
import org.elasticsearch.index.analysis.AnalyzerProvider;
import org.elasticsearch.index.analysis.TokenFilterFactory;
import org.elasticsearch.index.analysis.TokenizerFactory;
import org.elasticsearch.indices.analysis.AnalysisModule.AnalysisProvider;
import org.elasticsearch.plugins.AnalysisPlugin;
import org.elasticsearch.plugins.Plugin;

/**
 * Registers Lucene's SmartChineseAnalyzer under the names the official analysis-smartcn plugin uses
 * ("smartcn" analyzer, "smartcn_tokenizer", "smartcn_stop").
 *
 * Hand-written on purpose: Elastic publishes the smartcn plugin only as a distribution zip, not on
 * Maven Central, while Lucene's analyzer itself is there (org.apache.lucene:lucene-analysis-smartcn).
 * Keeping the names identical lets the same index template run here and in the compose image,
 * which installs the official plugin.
 */
public class SmartcnPlugin extends Plugin implements AnalysisPlugin {

    @Override
    public Map<String, AnalysisProvider<AnalyzerProvider<? extends Analyzer>>> getAnalyzers() {
        return Map.of("smartcn", (indexSettings, env, name, settings) -> new AbstractIndexAnalyzerProvider<SmartChineseAnalyzer>(name, settings) {
            private final SmartChineseAnalyzer analyzer = new SmartChineseAnalyzer();

            @Override
            public SmartChineseAnalyzer get() {
                return analyzer;
            }
        });
    }

    @Override
    public Map<String, AnalysisProvider<TokenizerFactory>> getTokenizers() {
        return Map.of("smartcn_tokenizer", (indexSettings, env, name, settings) -> new AbstractTokenizerFactory(indexSettings, settings, name) {
            @Override
            public Tokenizer create() {
                return new HMMChineseTokenizer();
            }
        });
    }

    @Override
    public Map<String, AnalysisProvider<TokenFilterFactory>> getTokenFilters() {
        return Map.of("smartcn_stop", (indexSettings, env, name, settings) -> new AbstractTokenFilterFactory(name, settings) {
            @Override
            public TokenStream create(TokenStream tokenStream) {
                return new StopFilter(tokenStream, SmartChineseAnalyzer.getDefaultStopSet());
            }
        });
    }
}
