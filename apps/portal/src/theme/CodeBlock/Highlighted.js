// theme-classic's CodeBlock, with the extra Prism languages registered the way its own client module
// would (Prism components mutate the global Prism while they load).
import { Prism } from 'prism-react-renderer';
import siteConfig from '@generated/docusaurus.config';
import CodeBlock from '@theme-original/CodeBlock';

const previous = globalThis.Prism;
globalThis.Prism = Prism;
for (const lang of siteConfig.themeConfig.prism.additionalLanguages) {
  // Webpack's require(), as theme-classic's own client module does: each language must register while
  // globalThis.Prism is set, which neither a (hoisted) import nor an (async) import() can guarantee.
  // eslint-disable-next-line no-undef, @typescript-eslint/no-require-imports -- webpack bundles this module and provides require()
  require(`prismjs/components/prism-${lang}`);
}
if (previous === undefined) delete globalThis.Prism;
else globalThis.Prism = previous;

export default CodeBlock;
