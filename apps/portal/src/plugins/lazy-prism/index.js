// Keeps the syntax highlighter (Prism, ~30 KiB gzip) out of the main bundle. theme-classic registers
// extra Prism languages from a client module that every page loads; this plugin swaps that module
// for an empty one, and src/theme/CodeBlock loads Prism (and registers the languages) on the first
// code block instead. Pages without code — the landing page among them — never download it.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import webpack from 'webpack';

const here = dirname(fileURLToPath(import.meta.url));

/** @type {import('@docusaurus/types').PluginModule} */
export default function lazyPrismPlugin() {
  return {
    name: 'tessera-lazy-prism',
    configureWebpack() {
      return {
        plugins: [
          new webpack.NormalModuleReplacementPlugin(
            /@docusaurus[\\/]theme-classic[\\/]lib[\\/]prism-include-languages\.js$/,
            join(here, 'empty-client-module.js'),
          ),
        ],
      };
    },
  };
}
