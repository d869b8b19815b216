import { Link } from '../../components/navigation';
import changelog from '../../../../CHANGELOG.md?raw';
import { formatDate } from '../../base/format';
import { parseChangelog } from './changelog';
import { usePageMeta } from './usePageMeta';

const values = [
  { name: 'Innovation', text: 'Beat detection, shot analysis and automatic edit planning do the tedious part of editing.' },
  { name: 'Community', text: 'Creators share their reels to the showcase, and the best of them inspire the next ones.' },
  {
    name: 'Excellence',
    text: 'Every cut lands on a frame, every reel is rendered the same way twice, and nothing is charged for a failed job.',
  },
  { name: 'Passion', text: 'We make the tool we wanted for our own footage: fast, honest about cost, and fun to use.' },
];

const different = [
  'Cuts follow the music: beats and bar lines are found in your track, and each segment is fitted to them.',
  'It watches your footage: black, frozen and blurred stretches are skipped, and each clip shows its best moment.',
  'One price formula, shown before you generate, and the same one used for the charge.',
  'Your files stay yours: uploads nobody used are deleted after a day, and deleting a reel deletes its video.',
];

const roles = [
  { role: 'Engineering', text: 'builds the editor, the render engine and the services that run them.' },
  { role: 'Design', text: 'shapes how a reel is made, from upload to download, on any screen.' },
  { role: 'Operations', text: 'keeps rendering fast and reliable and watches every job to its end.' },
  { role: 'Support', text: 'answers every message sent from the contact page.' },
];

// The product's own history: CHANGELOG.md at the repository's root, read when the app is built.
const history = parseChangelog(changelog);

/** /about: mission, values, what is different, who does what (roles, not invented people), and the changelog. */
export function AboutPage() {
  usePageMeta('About Us', 'Why Reelsmith exists, what it does differently, and the values and roles behind it.');
  return (
    <section className="page public">
      <h1>About Us</h1>
      <h2>Our mission</h2>
      <p className="lead">Turn anyone's clips and music into a reel worth watching, in minutes rather than hours.</p>
      <h2>Our values</h2>
      <div className="value-grid">
        {values.map((v) => (
          <div key={v.name} className="card">
            <h3>{v.name}</h3>
            <p>{v.text}</p>
          </div>
        ))}
      </div>
      <h2>What Reelsmith does differently</h2>
      <ul className="tips">
        {different.map((d) => (
          <li key={d}>{d}</li>
        ))}
      </ul>
      <h2>Who does what</h2>
      <ul className="roles">
        {roles.map((r) => (
          <li key={r.role}>
            <strong>{r.role}</strong> {r.text}
          </li>
        ))}
      </ul>
      <h2>How we got here</h2>
      <p>What shipped, day by day, from the product's changelog.</p>
      <ol className="timeline" aria-label="Changelog">
        {history.map((d) => (
          <li key={d.date}>
            <h3>
              <time dateTime={d.date}>{formatDate(`${d.date}T12:00:00Z`)}</time>
            </h3>
            <ul>
              {d.items.map((item) => (
                <li key={item}>{item}</li>
              ))}
            </ul>
          </li>
        ))}
      </ol>
      <p className="center">
        <Link to="/" className="btn primary">
          Start Creating
        </Link>{' '}
        <Link to="/contact" className="btn">
          Get in touch
        </Link>
      </p>
    </section>
  );
}
